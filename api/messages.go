package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/projections"
)

// Messages, in every family: listed (list.go pages and filters), read,
// marked read and deleted. What a message holds beyond its summary, the raw
// source, attachments and the HTML body, is in content.go.

func (s *Server) inboxEmailsA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	l, ok := s.List(w, r, in)
	if !ok {
		return
	}
	family.WritePage(w, len(l.Items), func(i int) any { return summaryA(&l.Items[i]) })
}

// lookupEmailA finds the email the path's {id} names, or answers 404.
func (s *Server) lookupEmailA(w http.ResponseWriter, r *http.Request) (*projections.Message, bool) {
	m, _, err := s.MessageByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return nil, false
	}
	return m, true
}

func (s *Server) getEmailA(w http.ResponseWriter, r *http.Request) {
	if m, ok := s.lookupEmailA(w, r); ok {
		family.WriteJSON(w, http.StatusOK, toEmailA(m))
	}
}

func (s *Server) markReadA(w http.ResponseWriter, r *http.Request) {
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

func (s *Server) deleteEmailA(w http.ResponseWriter, r *http.Request) {
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

func (s *Server) mailboxListB(w http.ResponseWriter, r *http.Request) {
	in, ok := s.mailboxB(w, r)
	if !ok {
		return
	}
	l, ok := s.List(w, r, in)
	if !ok {
		return
	}
	// Family B's shape has whole messages in its list: each is read, written
	// and let go in turn (one more read each, whatever the mailbox holds),
	// and the page ends early past its budget (answer.go). Until the first
	// is read the answer can still be an error.
	i := 0
	// next reads the page's next message that is still there; nil at the end.
	next := func() (*projections.Message, error) {
		for i < len(l.Items) {
			m, err := s.Views.MessageIn(r.Context(), in, l.Items[i].ID)
			i++
			if tempmail.KindOf(err) == tempmail.NotFound {
				continue // deleted between the list and now
			}
			return m, err
		}
		return nil, nil
	}
	m, err := next()
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	a := family.NewAnswer(w, http.StatusOK)
	a.Raw(`{"emails":[`)
	for first := true; m != nil && a.More(); first = false {
		if !first {
			a.Raw(",")
		}
		a.Value(toMessageB(m))
		if m, err = next(); err != nil {
			// The status is sent: the answer is cut off, so that the client
			// sees a failure rather than a page that looks whole.
			s.Log.Warn("mailbox list: cannot read a message; answer cut off", "err", err)
			panic(http.ErrAbortHandler)
		}
	}
	a.Raw(`],"total":` + strconv.Itoa(l.Total) + `}`)
	a.Finish()
}

// lookupMessageB resolves {username}/{filename} to a message of that mailbox.
func (s *Server) lookupMessageB(w http.ResponseWriter, r *http.Request) (*projections.Message, bool) {
	in, ok := s.mailboxB(w, r)
	if !ok {
		return nil, false
	}
	id, isEML := strings.CutSuffix(chi.URLParam(r, "filename"), ".eml")
	var m *projections.Message
	var err error = family.ErrNotFound
	if isEML {
		m, err = s.MessageIn(r.Context(), in, id)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Email not found"))
		return nil, false
	}
	return m, true
}

func (s *Server) getMessageB(w http.ResponseWriter, r *http.Request) {
	if m, ok := s.lookupMessageB(w, r); ok {
		family.WriteJSON(w, http.StatusOK, toMessageB(m))
	}
}

func (s *Server) markReadB(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	m, ok := s.lookupMessageB(w, r)
	if !ok {
		return
	}
	m, err := s.Commands.MarkRead(r.Context(), m)
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Email not found"))
		return
	}
	family.WriteJSON(w, http.StatusOK, toMessageB(m))
}

func (s *Server) deleteMessageB(w http.ResponseWriter, r *http.Request) {
	m, ok := s.lookupMessageB(w, r)
	if !ok {
		return
	}
	if err := s.Commands.DeleteMessage(r.Context(), m); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "message": "Email deleted successfully"})
}

func (s *Server) tokenMessages(w http.ResponseWriter, r *http.Request) {
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

func (s *Server) tokenMessage(w http.ResponseWriter, r *http.Request) {
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
	family.WriteJSON(w, http.StatusOK, toMessageC(m, in.Token))
}

// tokenMessageOf resolves {token} and {id} to a message of that inbox. On
// failure it has answered.
func (s *Server) tokenMessageOf(w http.ResponseWriter, r *http.Request) (*projections.Inbox, *projections.Message, bool) {
	in, err := s.tokenInboxOf(r)
	var m *projections.Message
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

func (s *Server) markReadC(w http.ResponseWriter, r *http.Request) {
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
	family.WriteJSON(w, http.StatusOK, toMessageC(m, in.Token))
}

func (s *Server) deleteMessageC(w http.ResponseWriter, r *http.Request) {
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
