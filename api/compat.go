package api

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"
)

// The compatible families (API.md "Coming from Mailosaur, MailSlurp or
// mail.tm"): front doors for the clients of other services, each under
// /compat/<name>/ and switched by --compat, over the same inboxes, views
// and commands as families A, B and C. Each is one file per service
// (compat_mailosaur.go, compat_mailslurp.go, compat_mailtm.go), with its
// routes, how its clients authenticate, and its error shape; the tenants'
// keys are what they authenticate with.

// compatPrefix is where the compatible families live: /compat/<name>/.
const compatPrefix = "/compat/"

// compatDoor registers a compatible family (errors.go): its paths under
// /compat/<name>/, its error shape, how its clients say who they are
// (credential: the family checks scopes in its handlers), and its routes,
// mounted when --compat names it.
func compatDoor(fam family, name string, write func(http.ResponseWriter, int, string),
	credential func(*http.Request) (credential, error), routes func(chi.Router)) door {
	return door{fam: fam, name: name, paths: []string{compatPrefix + name + "/"}, notFound: "Not found",
		body:       func(w http.ResponseWriter, status int, msg string, _ bool) { write(w, status, msg) },
		credential: credential, routes: routes}
}

// compatRoutes mounts the families --compat names.
func (s *Server) compatRoutes(r chi.Router) {
	for _, d := range s.doors {
		if d.routes != nil && slices.Contains(s.cfg.Compat, d.name) {
			r.Route(compatPrefix+d.name, d.routes)
		}
	}
}
