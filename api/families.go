package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"tempmail/api/compat/mailosaur"
	"tempmail/api/compat/mailslurp"
	"tempmail/api/compat/mailtm"
	"tempmail/api/family"
	"tempmail/api/inboxapi"
	"tempmail/api/mailboxapi"
	"tempmail/api/tokenapi"
)

// The families the server serves, registered as doors (family.Door), and
// the compatible ones mounted where --compat names them.

// registerDoors registers the families: each says where its paths are and how its
// errors look. A path under none of them is an operational one (/readyz,
// /metrics, /mcp, the page), whose errors are {"error": ...}.
func (s *Server) registerDoors() []family.Door {
	plain := func(w http.ResponseWriter, status int, msg string, _ bool) {
		family.WriteJSON(w, status, map[string]string{"error": msg})
	}
	return []family.Door{
		// First: the door of every path no other door has (DoorFor).
		{Paths: []string{"/"}, Body: plain, NotFound: "Not found"},
		inboxapi.Door(),
		mailboxapi.Door(),
		tokenapi.Door(),
		mailosaur.New(s.Kit).Door(),
		mailslurp.New(s.Kit).Door(),
		mailtm.New(s.Kit, s.passwordCost).Door(),
	}
}

// withFamily finds the family of each request, once, from its path.
func (s *Server) withFamily(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := family.DoorFor(s.doors, r.URL.Path)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), family.DoorKey{}, d)))
	})
}

// compatRoutes mounts the families --compat names.
func (s *Server) compatRoutes(r chi.Router) {
	for _, d := range s.doors {
		if d.Routes != nil && slices.Contains(s.Config.Compat, d.Name) {
			r.Route(family.CompatPrefix+d.Name, d.Routes)
		}
	}
}
