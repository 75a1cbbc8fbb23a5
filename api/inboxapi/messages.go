package inboxapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
	"tempmail/mailbox"
)

// Messages, in every family: listed (list.go pages and filters), read,
// marked read and deleted. What a message holds beyond its summary, the raw
// source, attachments and the HTML body, is in content.go.

func (s *API) inboxEmailsA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	l, ok := s.List(w, r, in)
	if !ok {
		return
	}
	family.WritePage(w, len(l.Items), func(i int) any { return summaryA(in, &l.Items[i]) })
}

// lookupEmailA finds the email the path's {id} names, or answers 404.
func (s *API) lookupEmailA(w http.ResponseWriter, r *http.Request) (*mailbox.Message, bool) {
	m, _, err := s.MessageByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return nil, false
	}
	return m, true
}

func (s *API) getEmailA(w http.ResponseWriter, r *http.Request) {
	if m, ok := s.lookupEmailA(w, r); ok {
		family.WriteJSON(w, http.StatusOK, toEmailA(m))
	}
}

func (s *API) markReadA(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	m, ok := s.lookupEmailA(w, r)
	if !ok {
		return
	}
	m, err := s.Commands.MarkRead(r.Context(), m)
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	family.WriteJSON(w, http.StatusOK, toEmailA(m))
}

func (s *API) deleteEmailA(w http.ResponseWriter, r *http.Request) {
	m, ok := s.lookupEmailA(w, r)
	if !ok {
		return
	}
	if err := s.Commands.DeleteMessage(r.Context(), m); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
