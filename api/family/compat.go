package family

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// The compatible families (docs/compatible.md "Coming from Mailosaur, MailSlurp or
// mail.tm"): front doors for the clients of other services, each under
// /compat/<name>/ and switched by --compat, over the same inboxes, views
// and commands as families A, B and C. Each is a package of its own
// (api/compat/mailosaur, api/compat/mailslurp, api/compat/mailtm), with
// its routes, how its clients authenticate, and its error shape; the
// tenants' keys are what they authenticate with.

// CompatPrefix is where the compatible families live: /compat/<name>/.
const CompatPrefix = "/compat/"

// CompatDoor registers a compatible family (errors.go): its paths under
// /compat/<name>/, its error shape, how its clients say who they are
// (credential: the family checks scopes in its handlers), and its routes,
// mounted when --compat names it.
func CompatDoor(name string, write func(http.ResponseWriter, int, string),
	credential func(*http.Request) (Credential, error), routes func(chi.Router)) Door {
	return Door{Name: name, Paths: []string{CompatPrefix + name + "/"}, NotFound: "Not found",
		Body:       func(w http.ResponseWriter, status int, msg string, _ bool) { write(w, status, msg) },
		Credential: credential, Routes: routes}
}
