package mailboxapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
	"tempmail/command"
)

// API is family B, over the Kit every family is given.
type API struct{ *family.Kit }

// New returns family B.
func New(k *family.Kit) *API { return &API{Kit: k} }

// Door registers the family with the server: its paths, and its errors'
// shape, {"success": false, "error": ...}.
func Door() family.Door {
	return family.Door{Name: "B", Paths: []string{"/api/mailstore/", "/api/create-temp-email"}, NotFound: "Not found",
		Scope: scope,
		Body: func(w http.ResponseWriter, status int, msg string, _ bool) {
			family.WriteJSON(w, status, map[string]any{"success": false, "error": msg})
		}}
}

// scope is the scope a key needs on the family's paths (family.Door):
// inboxes to make a mailbox or delete a message, read (or inboxes) for
// the rest.
func scope(method, path string) string {
	if method == http.MethodDelete || method == http.MethodPost && path == "/api/create-temp-email" {
		return command.ScopeInboxes
	}
	return command.ScopeRead
}

// Routes registers the family's routes with the server's router.
func (s *API) Routes(r chi.Router) {
	r.With(s.LimitCreates).Post("/api/create-temp-email", s.createTempEmailB)
	r.Get("/api/mailstore/mailbox/{username}", s.mailboxListB)
	r.Get("/api/mailstore/mailbox/{username}/{filename}", s.getMessageB)
	r.Post("/api/mailstore/mailbox/{username}/{filename}", s.markReadB)
	r.Delete("/api/mailstore/mailbox/{username}/{filename}/delete", s.deleteMessageB)
}
