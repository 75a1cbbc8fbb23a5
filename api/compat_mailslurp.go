package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// The MailSlurp family (compat.go): to be built (issue 33).

func (s *Server) mailslurpRoutes(r chi.Router) {}

// mailslurpCredential is who a request of the family comes from.
func (s *Server) mailslurpCredential(r *http.Request) (credential, error) { return credential{}, nil }

// writeMailSlurpError answers with status and msg in the family's error shape.
func writeMailSlurpError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
