package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/command"
	"tempmail/events"
	"tempmail/ingest"
	"tempmail/mailauth"
	"tempmail/projections"
	"tempmail/wire"
)

// Family A: the inbox API (API.md "Family A").

var (
	errNoCredentials = tempmail.Errorf(tempmail.Unauthorized, "Authentication credentials were not provided.")
	errBadToken      = tempmail.Errorf(tempmail.Unauthorized, "Invalid token.")
)

// checkToken verifies `Authorization: Token <API_TOKEN>` in constant time.
func (s *Server) checkToken(r *http.Request) error {
	h := r.Header.Get("Authorization")
	if h == "" {
		return errNoCredentials
	}
	tok, ok := strings.CutPrefix(h, "Token ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.cfg.APIToken)) != 1 {
		return errBadToken
	}
	return nil
}

// requireToken guards endpoints that always need the API token.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.checkToken(r); err != nil {
			writeError(w, r, s.log, familyA, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type inboundResult struct {
	Success   bool   `json:"success"`
	MessageID string `json:"message_id"`
	EmailID   string `json:"email_id"`
}

// inboundA delivers one message handed over by another MTA or a provider
// (the inbound webhook, POST /api/webhook/email/),
// through the same path as SMTP.
func (s *Server) inboundA(w http.ResponseWriter, r *http.Request) {
	msg, err := s.ingest.ReadInbound(r)
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	res, err := s.ingest.DeliverInbound(r, msg)
	if errors.Is(err, ingest.ErrNoMailbox) {
		err = tempmail.Errorf(tempmail.NotFound, "Inbox not found or expired")
	}
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	// Read-your-writes: the message is readable when the 201 arrives.
	ctx, cancel := context.WithTimeout(r.Context(), command.Timeout)
	defer cancel()
	for _, ack := range res.Acks {
		if err := s.views.WaitApplied(ctx, ack); err != nil {
			writeError(w, r, s.log, familyA, err)
			return
		}
	}
	writeJSON(w, http.StatusCreated, inboundResult{Success: true, MessageID: res.HeaderMessageID, EmailID: res.MessageIDs[0]})
}

// optionalToken guards every other family A endpoint when --require-token is set.
func (s *Server) optionalToken(next http.Handler) http.Handler {
	if !s.cfg.RequireToken {
		return next
	}
	return s.requireToken(next)
}

type domainA struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	IsActive bool   `json:"is_active"`
	CatchAll bool   `json:"catch_all"` // mail to any address makes its inbox
}

func (s *Server) domainsA(w http.ResponseWriter, r *http.Request) {
	list, _, err := s.views.Domains(r.Context())
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	out := []domainA{}
	for _, d := range list {
		if d.Active {
			out = append(out, domainA{d.ID, d.Name, true, s.catchAll(d.Name)})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

type inboxA struct {
	ID          string    `json:"id"`
	Email       string    `json:"email"`
	ExpiresAt   wire.Time `json:"expires_at"`
	TTL         *int64    `json:"ttl"`
	CreatedAt   wire.Time `json:"created_at"`
	Domain      string    `json:"domain"`
	AccessToken string    `json:"access_token"`
	EmailCount  *int      `json:"email_count,omitempty"`
}

func toInboxA(in *projections.Inbox) inboxA {
	_, domain := tempmail.SplitAddress(in.Address)
	out := inboxA{ID: in.ID, Email: in.Address, ExpiresAt: wire.Time(in.ExpiresAt), CreatedAt: wire.Time(in.CreatedAt),
		Domain: domain, AccessToken: in.Token}
	if in.TTL > 0 {
		out.TTL = &in.TTL
	}
	return out
}

func (s *Server) createInboxA(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DomainID json.RawMessage `json:"domain_id"`
		TTL      json.RawMessage `json:"ttl"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	domainID, err := jsonInt(body.DomainID)
	switch {
	case len(body.DomainID) == 0 || string(body.DomainID) == "null":
		err = tempmail.Errorf(tempmail.Invalid, "domain_id is required")
	case err != nil:
		err = tempmail.Errorf(tempmail.Invalid, "domain_id must be an integer")
	}
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	ttl := int64(3600)
	if len(body.TTL) > 0 && string(body.TTL) != "null" {
		ttl, err = jsonInt(body.TTL)
	}
	minTTL, maxTTL := int64(s.cfg.MinInboxTTL/time.Second), int64(s.cfg.MaxInboxTTL/time.Second)
	if err != nil || ttl < minTTL || ttl > maxTTL {
		writeError(w, r, s.log, familyA, tempmail.Errorf(tempmail.Invalid, "ttl must be an integer between %d and %d", minTTL, maxTTL))
		return
	}
	dom, err := s.activeDomain(r, func(d projections.Domain) bool { return int64(d.ID) == domainID })
	if err != nil {
		writeError(w, r, s.log, familyA, asNotFound(err, "Domain not found or inactive"))
		return
	}
	in, err := s.commands.CreateInbox(r.Context(), command.Spec{Family: events.FamilyA, Random: 10, Domain: dom,
		TTL: time.Duration(ttl) * time.Second})
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	writeJSON(w, http.StatusCreated, toInboxA(in))
}

// jsonInt reads a JSON number that is a whole number (not a string that
// holds one, which json.Number would accept).
func jsonInt(raw json.RawMessage) (int64, error) {
	if len(raw) > 0 && raw[0] == '"' {
		return 0, errors.New("a string, not a number")
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, err
	}
	return strconv.ParseInt(n.String(), 10, 64)
}

// activeDomain returns the first active domain that match accepts.
func (s *Server) activeDomain(r *http.Request, match func(projections.Domain) bool) (projections.Domain, error) {
	list, _, err := s.views.Domains(r.Context())
	if err != nil {
		return projections.Domain{}, err
	}
	for _, d := range list {
		if d.Active && match(d) {
			return d, nil
		}
	}
	return projections.Domain{}, errNotFound
}

// lookupInboxA finds the inbox the path's {id} names, or answers 404.
func (s *Server) lookupInboxA(w http.ResponseWriter, r *http.Request) (*projections.Inbox, bool) {
	in, err := s.inboxByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, s.log, familyA, asNotFound(err, notFoundA))
		return nil, false
	}
	return in, true
}

func (s *Server) getInboxA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	out := toInboxA(in)
	out.EmailCount = &in.Count
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) deleteInboxA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	if err := s.commands.DeleteInbox(r.Context(), in); err != nil {
		writeError(w, r, s.log, familyA, asNotFound(err, notFoundA))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) inboxEmailsA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	l, ok := s.list(w, r, familyA, in)
	if !ok {
		return
	}
	writePage(w, len(l.Items), func(i int) any { return wire.SummaryA(&l.Items[i]) })
}

type attachmentA struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	FileSize    int64  `json:"file_size"`
}

type emailA struct {
	ID          string        `json:"id"`
	InboxID     string        `json:"inbox_id"`
	MessageID   string        `json:"message_id"`
	FromEmail   string        `json:"from_email"`
	FromName    string        `json:"from_name"`
	To          []string      `json:"to"`
	Cc          []string      `json:"cc"`
	Subject     string        `json:"subject"`
	BodyText    longText      `json:"body_text"`
	BodyHTML    longText      `json:"body_html"`
	ReceivedAt  wire.Time     `json:"received_at"`
	IsRead      bool          `json:"is_read"`
	Size        int64         `json:"size"`
	Attachments []attachmentA `json:"attachments"`
	// Authentication is null for a message that was not checked.
	Authentication *mailauth.Result `json:"authentication"`
	Links          []messageLink    `json:"links"`
}

func (m emailA) longTextLen() int { return len(m.BodyText) + len(m.BodyHTML) }

func toEmailA(m *projections.Message) emailA {
	out := emailA{ID: m.ID, InboxID: m.InboxID, MessageID: m.HeaderMessageID, FromEmail: m.From,
		FromName: m.FromName, To: orEmpty(m.To), Cc: orEmpty(m.Cc), Subject: m.Subject, BodyText: longText(m.Text),
		BodyHTML: longText(m.HTML), ReceivedAt: wire.Time(m.ReceivedAt), IsRead: m.IsRead, Size: m.Size,
		Attachments: []attachmentA{}, Authentication: authentication(m.Auth), Links: linksOf(m)}
	for _, a := range m.Attachments {
		out.Attachments = append(out.Attachments, attachmentA{a.ID, a.Filename, a.ContentType, a.Size})
	}
	return out
}

// authentication is a message's check results as every family shows
// them: null when it was not checked (--auth-checks off, or stored before
// checks were made), and dkim an array, [] when unsigned.
func authentication(a *mailauth.Result) *mailauth.Result {
	if a == nil || a.DKIM != nil {
		return a
	}
	c := *a // the stored content is shared: never changed
	c.DKIM = []mailauth.DKIM{}
	return &c
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// lookupEmailA finds the email the path's {id} names, or answers 404.
func (s *Server) lookupEmailA(w http.ResponseWriter, r *http.Request) (*projections.Message, bool) {
	m, _, err := s.messageByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, s.log, familyA, asNotFound(err, notFoundA))
		return nil, false
	}
	return m, true
}

func (s *Server) getEmailA(w http.ResponseWriter, r *http.Request) {
	if m, ok := s.lookupEmailA(w, r); ok {
		writeJSON(w, http.StatusOK, toEmailA(m))
	}
}

func (s *Server) markReadA(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	m, ok := s.lookupEmailA(w, r)
	if !ok {
		return
	}
	m, err := s.commands.MarkRead(r.Context(), m)
	if err != nil {
		writeError(w, r, s.log, familyA, asNotFound(err, notFoundA))
		return
	}
	writeJSON(w, http.StatusOK, toEmailA(m))
}

func (s *Server) deleteEmailA(w http.ResponseWriter, r *http.Request) {
	m, ok := s.lookupEmailA(w, r)
	if !ok {
		return
	}
	if err := s.commands.DeleteMessage(r.Context(), m); err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) rawEmailA(w http.ResponseWriter, r *http.Request) {
	if m, ok := s.lookupEmailA(w, r); ok {
		s.serveRaw(w, r, familyA, m, false)
	}
}

// downloadAttachmentA serves an attachment's bytes. Its id is the message id
// and its position, so no index is needed to find it.
func (s *Server) downloadAttachmentA(w http.ResponseWriter, r *http.Request) {
	id := strings.ToLower(chi.URLParam(r, "id"))
	msgID := ""
	if len(id) > 37 && id[36] == '-' {
		msgID = id[:36]
	}
	m, _, err := s.messageByID(r.Context(), msgID)
	var att *events.Attachment
	if err == nil {
		for i := range m.Attachments {
			if m.Attachments[i].ID == id {
				att = &m.Attachments[i]
			}
		}
		if att == nil {
			err = errNotFound
		}
	}
	if err != nil {
		writeError(w, r, s.log, familyA, asNotFound(err, notFoundA))
		return
	}
	s.serveAttachment(w, r, familyA, m, att)
}

// serveRaw answers with a message exactly as received; download makes the
// browser save it as <id>.eml rather than show it.
func (s *Server) serveRaw(w http.ResponseWriter, r *http.Request, fam family, m *projections.Message, download bool) {
	rc, err := s.openRaw(r.Context(), m)
	if err != nil {
		writeError(w, r, s.log, fam, asNotFound(err, notFoundFor(r)))
		return
	}
	defer rc.Close()
	disposition := "inline"
	if download {
		disposition = "attachment"
	}
	w.Header().Set("Content-Type", "message/rfc822")
	w.Header().Set("Content-Length", strconv.FormatInt(m.Size, 10))
	w.Header().Set("Content-Disposition", disposition+`; filename="`+m.ID+`.eml"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	allowDownload(w, m.Size)
	if _, err := io.Copy(w, rc); err != nil {
		s.log.Warn("raw download interrupted", "id", m.ID, "err", err)
	}
}

// serveAttachment answers with the decoded bytes of one attachment.
// It holds room in s.downloads meanwhile (downloads.go).
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request, fam family, m *projections.Message, att *events.Attachment) {
	held, err := s.downloads.take(r.Context(), m)
	if err != nil {
		writeError(w, r, s.log, fam, err)
		return
	}
	defer func() { s.downloads.sem.Release(held) }()
	raw, err := s.rawBytes(r.Context(), m)
	if err != nil {
		writeError(w, r, s.log, fam, asNotFound(err, notFoundFor(r)))
		return
	}
	content, err := ingest.PartContent(raw, att.Part)
	held = s.downloads.keep(held, int64(len(content)))
	if err != nil {
		writeError(w, r, s.log, fam, tempmail.Wrap(tempmail.Internal, err, "the attachment cannot be read"))
		return
	}
	w.Header().Set("Content-Type", att.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	w.Header().Set("Content-Disposition", attachmentDisposition(att.Filename))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
	allowDownload(w, int64(len(content)))
	_, _ = w.Write(content)
}

// allowDownload gives a download of size bytes the time it needs: the
// server's write timeout suits ordinary answers, and would cut off a large
// message sent to a slow client. It allows a minute, and one more second
// for every 32 KiB.
func allowDownload(w http.ResponseWriter, size int64) {
	d := time.Minute + time.Duration(size/(32<<10))*time.Second
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
}

// attachmentDisposition is `attachment; filename="name"`, or the RFC 2231
// form when the name is not plain ASCII.
func attachmentDisposition(name string) string {
	plain := name != ""
	for _, r := range name {
		plain = plain && r >= 0x20 && r < 0x7f && r != '"' && r != '\\'
	}
	if plain {
		return `attachment; filename="` + name + `"`
	}
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": name}); v != "" {
		return v
	}
	return "attachment"
}
