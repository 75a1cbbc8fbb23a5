package api

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/events"
	"tempmail/projections"
)

// Family C: inboxes addressed by a token (API.md "Family C").

type tokenInbox struct {
	Token     string `json:"token"`
	Address   string `json:"address"`
	CreatedAt Time   `json:"created_at"`
	ExpiresAt Time   `json:"expires_at"`
}

type attachmentC struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
}

type messageSummaryC struct {
	ID          string        `json:"id"`
	From        string        `json:"from"`
	FromName    string        `json:"from_name"`
	To          string        `json:"to"`
	Subject     string        `json:"subject"`
	ReceivedAt  Time          `json:"received_at"`
	Size        int64         `json:"size"`
	IsRead      bool          `json:"is_read"`
	Attachments []attachmentC `json:"attachments"`
	Preview     string        `json:"preview"`
}

func (s *Server) createTokenInbox(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	dom, err := s.defaultDomain(r)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	in, err := s.createInbox(r.Context(), inboxSpec{Family: events.FamilyC, Random: 10,
		Domain: dom, TTL: s.cfg.TokenInboxTTL})
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	writeJSON(w, http.StatusCreated, tokenInbox{Token: in.Token, Address: in.Address,
		CreatedAt: Time(in.CreatedAt), ExpiresAt: Time(in.ExpiresAt)})
}

// defaultDomain is the first configured domain (family B's, and family C's
// default), if it is active.
func (s *Server) defaultDomain(r *http.Request) (projections.Domain, error) {
	list, _, err := s.views.Domains(r.Context())
	if err != nil {
		return projections.Domain{}, err
	}
	for _, d := range list {
		if d.Active && d.Name == s.cfg.Domains[0] {
			return d, nil
		}
	}
	return projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "No domains available")
}

// tokenInboxOf resolves the {token} path parameter to a live inbox.
func (s *Server) tokenInboxOf(r *http.Request) (*projections.Inbox, error) {
	in, err := s.views.InboxByToken(r.Context(), chi.URLParam(r, "token"))
	if tempmail.KindOf(err) == tempmail.NotFound || (err == nil && !in.Live(time.Now())) {
		return nil, errNotFoundInbox
	}
	return in, err
}

func (s *Server) tokenMessages(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	list, err := s.views.Messages(r.Context(), in)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	out := make([]messageSummaryC, 0, len(list))
	for _, m := range list {
		out = append(out, messageSummaryC{ID: m.ID, From: m.From, FromName: m.FromName,
			To: in.Address, Subject: m.Subject, ReceivedAt: Time(m.ReceivedAt), Size: m.Size,
			IsRead: m.IsRead, Attachments: attachmentsC(m.Attachments), Preview: m.Preview})
	}
	writeJSON(w, http.StatusOK, out)
}

func attachmentsC(list []events.Attachment) []attachmentC {
	out := make([]attachmentC, 0, len(list))
	for _, a := range list {
		out = append(out, attachmentC{Filename: a.Filename, ContentType: a.ContentType, Size: a.Size})
	}
	return out
}
