package tokenapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

func (s *API) tokenMessages(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	l, ok := s.List(w, r, in)
	if !ok {
		return
	}
	family.WritePage(w, len(l.Items), func(i int) any { return summaryC(in, &l.Items[i]) })
}

func (s *API) tokenMessage(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	m, err := s.MessageIn(r.Context(), in, chi.URLParam(r, "id"))
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Message not found"))
		return
	}
	family.WriteJSON(w, http.StatusOK, wire.MessageOf(m, in.Token))
}

// tokenMessageOf resolves {token} and {id} to a message of that inbox. On
// failure it has answered.
func (s *API) tokenMessageOf(w http.ResponseWriter, r *http.Request) (*projections.Inbox, *mailbox.Message, bool) {
	in, err := s.tokenInboxOf(r)
	var m *mailbox.Message
	if err == nil {
		m, err = s.MessageIn(r.Context(), in, chi.URLParam(r, "id"))
		err = family.AsNotFound(err, "Message not found")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return nil, nil, false
	}
	return in, m, true
}

func (s *API) markReadC(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	in, m, ok := s.tokenMessageOf(w, r)
	if !ok {
		return
	}
	m, err := s.Commands.MarkRead(r.Context(), m)
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Message not found"))
		return
	}
	family.WriteJSON(w, http.StatusOK, wire.MessageOf(m, in.Token))
}

func (s *API) deleteMessageC(w http.ResponseWriter, r *http.Request) {
	_, m, ok := s.tokenMessageOf(w, r)
	if !ok {
		return
	}
	if err := s.Commands.DeleteMessage(r.Context(), m); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
