package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/command"
	"tempmail/events"
	"tempmail/mailauth"
	"tempmail/projections"
	"tempmail/wire"
)

// Family B: mailboxes by username on the first configured domain (API.md
// "Family B"). Its inboxes never expire; its messages are retained for
// --message-retention.

type tempEmailB struct {
	Success   bool      `json:"success"`
	Email     string    `json:"email"`
	InboxID   string    `json:"inbox_id"`
	CreatedAt wire.Time `json:"created_at"`
	Token     string    `json:"token"`
}

func (s *Server) createTempEmailB(w http.ResponseWriter, r *http.Request) {
	var body struct {
		EmailName json.RawMessage `json:"email_name"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, familyB, err)
		return
	}
	name, err := s.emailName(body.EmailName, "email_name")
	if err != nil {
		writeError(w, r, s.log, familyB, err)
		return
	}
	dom, err := s.activeDomain(r, func(d projections.Domain) bool { return d.Name == s.cfg.Domains[0] })
	if err != nil {
		writeError(w, r, s.log, familyB, asInvalid(err, "No domains available"))
		return
	}
	in, err := s.commands.CreateInbox(r.Context(), command.Spec{Family: events.FamilyB, Local: name, Random: 12, Domain: dom})
	if err != nil {
		writeError(w, r, s.log, familyB, err)
		return
	}
	writeJSON(w, http.StatusCreated, tempEmailB{Success: true, Email: in.Address, InboxID: in.ID,
		CreatedAt: wire.Time(in.CreatedAt), Token: in.Token})
}

// emailName validates a wanted name, sent as field; empty means "pick one
// at random". Every family's chosen names pass here.
func (s *Server) emailName(raw json.RawMessage, field string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	invalid := func(why string) error { return tempmail.Errorf(tempmail.Invalid, "Invalid %s: %s", field, why) }
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", invalid("must be a string")
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return "", nil
	}
	if err := s.names.Check(name); err != nil {
		return "", invalid(tempmail.Message(err, "is not a name"))
	}
	return name, nil
}

// asInvalid turns a NotFound into a 400 with msg.
func asInvalid(err error, msg string) error {
	if tempmail.KindOf(err) == tempmail.NotFound {
		return tempmail.Errorf(tempmail.Invalid, "%s", msg)
	}
	return err
}

type attachmentB struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
}

type messageB struct {
	Filename    string            `json:"filename"`
	From        string            `json:"from"`
	FromName    string            `json:"from_name"`
	To          string            `json:"to"`
	Subject     string            `json:"subject"`
	Date        wire.Time         `json:"date"`
	Size        int64             `json:"size"`
	Headers     map[string]string `json:"headers"`
	Body        longText          `json:"body"`
	BodyHTML    longText          `json:"body_html"`
	IsRead      bool              `json:"is_read"`
	Attachments []attachmentB     `json:"attachments"`
	// Authentication is null for a message that was not checked.
	Authentication *mailauth.Result `json:"authentication"`
}

func (m messageB) longTextLen() int { return len(m.Body) + len(m.BodyHTML) }

func toMessageB(m *projections.Message) messageB {
	out := messageB{Filename: m.ID + ".eml", From: m.From, FromName: m.FromName, To: m.Address,
		Subject: m.Subject, Date: wire.Time(m.ReceivedAt), Size: m.Size, Headers: m.Headers, Body: longText(m.Text),
		BodyHTML: longText(m.HTML), IsRead: m.IsRead, Attachments: []attachmentB{}, Authentication: authentication(m.Auth)}
	if out.Headers == nil {
		out.Headers = map[string]string{}
	}
	for _, a := range m.Attachments {
		out.Attachments = append(out.Attachments, attachmentB{a.Filename, a.ContentType, a.Size})
	}
	return out
}

// mailboxB resolves {username} to a live inbox on the family B domain.
func (s *Server) mailboxB(w http.ResponseWriter, r *http.Request) (*projections.Inbox, bool) {
	user := strings.ToLower(chi.URLParam(r, "username"))
	addr, err := tempmail.NormalizeAddress(user + "@" + s.cfg.Domains[0])
	var in *projections.Inbox
	if err == nil && !strings.Contains(user, "@") {
		in, err = s.views.InboxByAddress(r.Context(), addr)
		in, err = liveInbox(in, err)
	} else {
		err = errNotFound
	}
	if err != nil {
		writeError(w, r, s.log, familyB, asNotFound(err, "Mailbox not found"))
		return nil, false
	}
	return in, true
}

func (s *Server) mailboxListB(w http.ResponseWriter, r *http.Request) {
	in, ok := s.mailboxB(w, r)
	if !ok {
		return
	}
	l, ok := s.list(w, r, familyB, in)
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
			m, err := s.views.MessageIn(r.Context(), in, l.Items[i].ID)
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
		writeError(w, r, s.log, familyB, err)
		return
	}
	a := newAnswer(w, http.StatusOK)
	a.raw(`{"emails":[`)
	for first := true; m != nil && a.more(); first = false {
		if !first {
			a.raw(",")
		}
		a.value(toMessageB(m))
		if m, err = next(); err != nil {
			// The status is sent: the answer is cut off, so that the client
			// sees a failure rather than a page that looks whole.
			s.log.Warn("mailbox list: cannot read a message; answer cut off", "err", err)
			panic(http.ErrAbortHandler)
		}
	}
	a.raw(`],"total":` + strconv.Itoa(l.Total) + `}`)
	a.finish()
}

// lookupMessageB resolves {username}/{filename} to a message of that mailbox.
func (s *Server) lookupMessageB(w http.ResponseWriter, r *http.Request) (*projections.Message, bool) {
	in, ok := s.mailboxB(w, r)
	if !ok {
		return nil, false
	}
	id, isEML := strings.CutSuffix(chi.URLParam(r, "filename"), ".eml")
	var m *projections.Message
	var err error = errNotFound
	if isEML {
		m, err = s.messageIn(r.Context(), in, id)
	}
	if err != nil {
		writeError(w, r, s.log, familyB, asNotFound(err, "Email not found"))
		return nil, false
	}
	return m, true
}

func (s *Server) getMessageB(w http.ResponseWriter, r *http.Request) {
	if m, ok := s.lookupMessageB(w, r); ok {
		writeJSON(w, http.StatusOK, toMessageB(m))
	}
}

func (s *Server) markReadB(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, familyB, err)
		return
	}
	m, ok := s.lookupMessageB(w, r)
	if !ok {
		return
	}
	m, err := s.commands.MarkRead(r.Context(), m)
	if err != nil {
		writeError(w, r, s.log, familyB, asNotFound(err, "Email not found"))
		return
	}
	writeJSON(w, http.StatusOK, toMessageB(m))
}

func (s *Server) deleteMessageB(w http.ResponseWriter, r *http.Request) {
	m, ok := s.lookupMessageB(w, r)
	if !ok {
		return
	}
	if err := s.commands.DeleteMessage(r.Context(), m); err != nil {
		writeError(w, r, s.log, familyB, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "message": "Email deleted successfully"})
}
