package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// The MailTM family (compat.go): to be built (issue 33).

func (s *Server) mailtmRoutes(r chi.Router) {}

// mailtmCredential is who a request of the family comes from.
func (s *Server) mailtmCredential(r *http.Request) (credential, error) { return credential{}, nil }

// writeMailTMError answers with status and msg in the family's error shape.
func writeMailTMError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
