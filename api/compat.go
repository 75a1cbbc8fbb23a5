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

// compat reports whether fam is one of the compatible families.
func (fam family) compat() bool {
	return fam == familyMailosaur || fam == familyMailSlurp || fam == familyMailTM
}

// compatRoutes mounts the families --compat names.
func (s *Server) compatRoutes(r chi.Router) {
	for name, routes := range map[string]func(chi.Router){
		"mailosaur": s.mailosaurRoutes,
		"mailslurp": s.mailslurpRoutes,
		"mailtm":    s.mailtmRoutes,
	} {
		if slices.Contains(s.cfg.Compat, name) {
			r.Route(compatPrefix+name, routes)
		}
	}
}

// compatCredential is who a request of a compatible family comes from, as
// that family's clients say it.
func (s *Server) compatCredential(r *http.Request, fam family) (credential, error) {
	switch fam {
	case familyMailosaur:
		return s.mailosaurCredential(r)
	case familyMailSlurp:
		return s.mailslurpCredential(r)
	}
	return s.mailtmCredential(r)
}
