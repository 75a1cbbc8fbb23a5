package mailboxapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
)

// A mailbox's messages: listed, read by file name, marked read, deleted.

// mailboxListB answers GET /api/mailstore/mailbox/{username}/.
func (s *API) mailboxListB(w http.ResponseWriter, r *http.Request) {
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
	// and the page ends early past its budget (api/family/answer.go). Until the first
	// is read the answer can still be an error.
	i := 0
	// next reads the page's next message that is still there; nil at the end.
	next := func() (*mailbox.Message, error) {
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
		a.Value(toMessage(m))
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
func (s *API) lookupMessageB(w http.ResponseWriter, r *http.Request) (*mailbox.Message, bool) {
	in, ok := s.mailboxB(w, r)
	if !ok {
		return nil, false
	}
	id, isEML := strings.CutSuffix(chi.URLParam(r, "filename"), ".eml")
	var m *mailbox.Message
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

func (s *API) getMessageB(w http.ResponseWriter, r *http.Request) {
	if m, ok := s.lookupMessageB(w, r); ok {
		family.WriteJSON(w, http.StatusOK, toMessage(m))
	}
}

func (s *API) markReadB(w http.ResponseWriter, r *http.Request) {
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
	family.WriteJSON(w, http.StatusOK, toMessage(m))
}

func (s *API) deleteMessageB(w http.ResponseWriter, r *http.Request) {
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
