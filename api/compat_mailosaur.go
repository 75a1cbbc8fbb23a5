package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// The Mailosaur family (compat.go): to be built (issue 33).

func (s *Server) mailosaurRoutes(r chi.Router) {}

// mailosaurCredential is who a request of the family comes from.
func (s *Server) mailosaurCredential(r *http.Request) (credential, error) { return credential{}, nil }

// writeMailosaurError answers with status and msg in the family's error shape.
func writeMailosaurError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
