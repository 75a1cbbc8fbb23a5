package mailboxapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
)

// API is family B, over the Kit every family is given.
type API struct{ *family.Kit }

// New returns family B.
func New(k *family.Kit) *API { return &API{Kit: k} }

// Door registers the family with the server: its paths, and its errors'
// shape, {"success": false, "error": ...}.
func Door() family.Door {
	return family.Door{Name: "B", Paths: []string{"/api/mailstore/", "/api/create-temp-email"}, NotFound: "Not found",
		Body: func(w http.ResponseWriter, status int, msg string, _ bool) {
			family.WriteJSON(w, status, map[string]any{"success": false, "error": msg})
		}}
}

// Routes registers the family's routes with the server's router.
func (s *API) Routes(r chi.Router) {
	r.With(s.LimitCreates).Post("/api/create-temp-email", s.createTempEmailB)
	r.Get("/api/mailstore/mailbox/{username}", s.mailboxListB)
	r.Get("/api/mailstore/mailbox/{username}/{filename}", s.getMessageB)
	r.Post("/api/mailstore/mailbox/{username}/{filename}", s.markReadB)
	r.Delete("/api/mailstore/mailbox/{username}/{filename}/delete", s.deleteMessageB)
}
