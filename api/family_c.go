package api

import (
	"context"
	"crypto/subtle"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/events"
	"tempmail/mailauth"
	"tempmail/projections"
	"tempmail/wire"
)

// Family C: inboxes addressed by a token (API.md "Family C").

type tokenInbox struct {
	Token     string    `json:"token"`
	Address   string    `json:"address"`
	CreatedAt wire.Time `json:"created_at"`
	ExpiresAt wire.Time `json:"expires_at"`
}

type attachmentC struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	URL         string `json:"url,omitempty"` // in a message's detail: where it downloads
}

type messageSummaryC struct {
	ID          string        `json:"id"`
	From        string        `json:"from"`
	FromName    string        `json:"from_name"`
	To          string        `json:"to"`
	Subject     string        `json:"subject"`
	ReceivedAt  wire.Time     `json:"received_at"`
	Size        int64         `json:"size"`
	IsRead      bool          `json:"is_read"`
	Attachments []attachmentC `json:"attachments"`
	Preview     string        `json:"preview"`
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

// tokenInboxOf resolves the {token} path parameter to a live inbox. A token
// that no inbox can have is answered without asking the views.
func (s *Server) tokenInboxOf(r *http.Request) (*projections.Inbox, error) {
	tok := chi.URLParam(r, "token")
	if !validToken(tok) {
		return nil, errNotFoundInbox
	}
	in, err := s.views.InboxByToken(r.Context(), tok)
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
	l, ok := s.list(w, r, familyC, in)
	if !ok {
		return
	}
	writePage(w, len(l.Items), func(i int) any { return summaryC(in, &l.Items[i]) })
}

// summaryC is a message as family C lists it.
func summaryC(in *projections.Inbox, m *projections.Summary) messageSummaryC {
	return messageSummaryC{ID: m.ID, From: m.From, FromName: m.FromName,
		To: in.Address, Subject: m.Subject, ReceivedAt: wire.Time(m.ReceivedAt), Size: m.Size,
		IsRead: m.IsRead, Attachments: attachmentsC(m.Attachments), Preview: m.Preview}
}

func attachmentsC(list []events.Attachment) []attachmentC {
	out := make([]attachmentC, 0, len(list))
	for _, a := range list {
		out = append(out, attachmentC{Filename: a.Filename, ContentType: a.ContentType, Size: a.Size})
	}
	return out
}

type messageC struct {
	ID          string            `json:"id"`
	From        string            `json:"from"`
	FromName    string            `json:"from_name"`
	To          string            `json:"to"`
	Cc          []string          `json:"cc"`
	Subject     string            `json:"subject"`
	Text        longText          `json:"text"`
	HTML        longText          `json:"html"`
	ReceivedAt  wire.Time         `json:"received_at"`
	Size        int64             `json:"size"`
	IsRead      bool              `json:"is_read"`
	Headers     map[string]string `json:"headers"`
	Attachments []attachmentC     `json:"attachments"`
	// Authentication is null for a message that was not checked.
	Authentication *mailauth.Result `json:"authentication"`
	Links          []messageLink    `json:"links"`
}

func (m messageC) longTextLen() int { return len(m.Text) + len(m.HTML) }

// toMessageC is a message as family C shows it; token, when set, gives
// each attachment the url that downloads it with the inbox's token.
func toMessageC(m *projections.Message, token string) messageC {
	out := messageC{ID: m.ID, From: m.From, FromName: m.FromName, To: m.Address, Cc: orEmpty(m.Cc), Subject: m.Subject,
		Text: longText(m.Text), HTML: longText(m.HTML), ReceivedAt: wire.Time(m.ReceivedAt), Size: m.Size, IsRead: m.IsRead,
		Headers: m.Headers, Attachments: attachmentsC(m.Attachments), Authentication: authentication(m.Auth), Links: linksOf(m)}
	if out.Headers == nil {
		out.Headers = map[string]string{}
	}
	if token != "" {
		for i := range out.Attachments {
			out.Attachments[i].URL = "/inboxes/" + token + "/messages/" + m.ID + "/attachments/" + strconv.Itoa(i+1) + "/"
		}
	}
	return out
}

func (s *Server) tokenMessage(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	m, err := s.messageIn(r.Context(), in, chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, s.log, familyC, asNotFound(err, "Message not found"))
		return
	}
	writeJSON(w, http.StatusOK, toMessageC(m, in.Token))
}

var (
	errReadKeyMissing = tempmail.Errorf(tempmail.Unauthorized, "read key required")
	errReadKeyWrong   = tempmail.Errorf(tempmail.Forbidden, "invalid read key")
	errNoMessages     = tempmail.Errorf(tempmail.NotFound, "No messages")
	errNoCode         = tempmail.Errorf(tempmail.NotFound, "No code found")
)

// checkReadKey enforces --read-key on latest, otp, link and address/latest, in
// constant time.
func (s *Server) checkReadKey(r *http.Request) error {
	if s.cfg.ReadKey == "" {
		return nil
	}
	key := r.Header.Get("X-Read-Key")
	if key == "" {
		return errReadKeyMissing
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.ReadKey)) != 1 {
		return errReadKeyWrong
	}
	return nil
}

// waitRequest is what latest, otp, link and address/latest are asked: how long
// to wait, for what newer than which message, matching what.
type waitRequest struct {
	wait   time.Duration
	after  string
	filter projections.Filter
}

// readParams checks the read key and reads wait, after and the match
// filters: the common start of latest, otp, link and address/latest. On failure
// it has answered.
func (s *Server) readParams(w http.ResponseWriter, r *http.Request) (q waitRequest, ok bool) {
	err := s.checkReadKey(r)
	if err == nil {
		q.wait, q.after, err = waitParams(r)
	}
	if err == nil {
		q.filter, err = matchFilter(r)
	}
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return q, false
	}
	return q, true
}

// waitParams reads wait (0-60 seconds) and after (a message id).
func waitParams(r *http.Request) (wait time.Duration, after string, err error) {
	q := r.URL.Query()
	if v := q.Get("wait"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 0 || n > 60 {
			return 0, "", tempmail.Errorf(tempmail.Invalid, "wait must be a whole number of seconds from 0 to 60")
		}
		wait = time.Duration(n) * time.Second
	}
	if after = strings.ToLower(q.Get("after")); after != "" && !validID(after) {
		return 0, "", tempmail.Errorf(tempmail.Invalid, "after must be a message id")
	}
	return wait, after, nil
}

// finder looks for an answer; found is false when there is none yet.
type finder func(ctx context.Context) (v any, found bool, err error)

// hold answers with find's result. With wait, while find has nothing yet, the
// request is held until the inbox changes (a Hub notification, no polling
// and no NATS consumer of its own) or the time is up, and then answered as
// without wait. Shutdown releases held requests at once.
func (s *Server) hold(r *http.Request, inboxID string, wait time.Duration, notFound error, find finder) (any, error) {
	ctx := r.Context()
	var changed <-chan struct{}
	if wait > 0 {
		ch, cancel := s.views.Hub().Subscribe(projections.InboxTopic(inboxID))
		defer cancel()
		changed = ch
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		v, found, err := find(ctx)
		if err != nil || found {
			return v, err
		}
		if wait == 0 {
			return nil, notFound
		}
		select {
		case <-changed:
			continue
		case <-timer.C:
		case <-s.stopping:
		case <-ctx.Done():
		}
		wait = 0 // one last look, then answer as without wait
	}
}

// latestOf finds the newest message of an inbox newer than q.after that
// passes q's filter. It reads the inbox afresh, so a held request sees
// expiry and new mail alike. token, when the caller holds it, gives the
// attachments their download URLs (an address and the read key do not
// reveal the token).
func (s *Server) latestOf(inboxID, token string, q waitRequest) finder {
	var sc scan
	return func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		var latest string
		if q.filter.Empty() {
			s, err := s.views.Latest(ctx, in)
			if err != nil {
				return nil, false, err
			}
			if s != nil {
				latest = s.ID
			}
		} else {
			err := sc.newestFirst(ctx, s.views, in, q.after, func(m *projections.Summary) (bool, error) {
				if q.filter.Match(m, in.Address) {
					latest = m.ID
				}
				return latest != "", nil
			})
			if err != nil {
				return nil, false, err
			}
		}
		if latest == "" || (q.after != "" && latest <= q.after) {
			return nil, false, nil
		}
		m, err := s.views.MessageIn(ctx, in, latest)
		if tempmail.KindOf(err) == tempmail.NotFound {
			return nil, false, nil // deleted a moment ago; the next change tells
		}
		if err != nil {
			return nil, false, err
		}
		return toMessageC(m, token), true, nil
	}
}

// scanChunk is how many messages a scan reads at a time.
const scanChunk = 8

// scan looks through an inbox's messages for a held request, newest first,
// a few at a time, and stops at the first that is what it looks for. It
// remembers where the list began when it last looked through it all in
// vain: looking again on the inbox's next change, it goes only as far as
// that, since what lies beyond was looked at (or was deleted). So a held
// request costs what is new on each change, not what the inbox holds.
type scan struct {
	seen string // the newest message of the last whole, quiet, vain look
}

// newestFirst calls visit for in's messages newest first, joined, down to
// (not including) the first one after names and the one sc saw last,
// until visit says it found what it looks for.
func (sc *scan) newestFirst(ctx context.Context, views *projections.Reader, in *projections.Inbox, after string,
	visit func(*projections.Summary) (found bool, err error)) error {
	newest := ""
	for offset := 0; ; offset += scanChunk {
		l, err := views.List(ctx, in, projections.Query{Offset: offset, Limit: scanChunk})
		if err != nil {
			return err
		}
		for i := range l.Items {
			m := &l.Items[i]
			if m.ID == sc.seen || (after != "" && m.ID <= after) {
				return sc.lookedInVain(ctx, views, in, newest)
			}
			if newest == "" {
				newest = m.ID
			}
			if found, err := visit(m); found || err != nil {
				return err
			}
		}
		if len(l.Items) < scanChunk {
			return sc.lookedInVain(ctx, views, in, newest)
		}
	}
}

// lookedInVain remembers the newest message of a look that found nothing,
// if the inbox did not change while it looked: a deletion meanwhile may
// have shifted a message past it unseen.
func (sc *scan) lookedInVain(ctx context.Context, views *projections.Reader, in *projections.Inbox, newest string) error {
	now, err := views.Inbox(ctx, in.ID)
	if err == nil && now.Seq == in.Seq && newest != "" {
		sc.seen = newest
	}
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil // it ended; the next look says so
	}
	return err
}

func (s *Server) latestC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readParams(w, r)
	if !ok {
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	s.answerHeld(w, r, in.ID, q.wait, errNoMessages, s.latestOf(in.ID, in.Token, q))
}

func (s *Server) answerHeld(w http.ResponseWriter, r *http.Request, inboxID string, wait time.Duration, notFound error, find finder) {
	if wait > 0 {
		release, err := s.waiters.acquire(r, s.clientOf(r))
		if err != nil {
			writeError(w, r, s.log, familyC, err)
			return
		}
		defer release()
		holdOpen(w, wait)
	}
	v, err := s.hold(r, inboxID, wait, notFound, find)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) addressLatestC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readParams(w, r)
	if !ok {
		return
	}
	raw := r.URL.Query().Get("address")
	if strings.TrimSpace(raw) == "" {
		writeError(w, r, s.log, familyC, tempmail.Errorf(tempmail.Invalid, "address is required"))
		return
	}
	addr, err := tempmail.NormalizeAddress(raw)
	var in *projections.Inbox
	if err == nil {
		in, err = liveInbox(s.views.InboxByAddress(r.Context(), addr))
	}
	if err != nil {
		writeError(w, r, s.log, familyC, asNotFound(asNotFoundInvalid(err), "Inbox not found"))
		return
	}
	s.answerHeld(w, r, in.ID, q.wait, errNoMessages, s.latestOf(in.ID, "", q))
}

// asNotFoundInvalid treats a malformed address as an unknown one: no inbox
// can have it.
func asNotFoundInvalid(err error) error {
	if tempmail.KindOf(err) == tempmail.Invalid {
		return errNotFound
	}
	return err
}

// defaultOTPPattern finds a six-digit code.
const defaultOTPPattern = `\b\d{6}\b`

type otpC struct {
	OTP        string    `json:"otp"`
	MessageID  string    `json:"message_id"`
	Subject    string    `json:"subject"`
	From       string    `json:"from"`
	ReceivedAt wire.Time `json:"received_at"`
}

func (s *Server) findOTPC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readParams(w, r)
	if !ok {
		return
	}
	re, err := patternParam(r, defaultOTPPattern)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	s.answerHeld(w, r, in.ID, q.wait, errNoCode, s.findOTP(in.ID, re, q))
}

// findOTP finds the newest message newer than q.after, passing q's filter,
// whose subject or text matches re, trying the subject first. The code is
// the first capture group if the pattern has one, else the whole match.
func (s *Server) findOTP(inboxID string, re *regexp.Regexp, q waitRequest) finder {
	code := func(text string) (string, bool) {
		m := re.FindStringSubmatch(text)
		if m == nil {
			return "", false
		}
		if len(m) > 1 {
			return m[1], true
		}
		return m[0], true
	}
	var sc scan
	return func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		var out *otpC
		err = sc.newestFirst(ctx, s.views, in, q.after, func(sum *projections.Summary) (bool, error) {
			if !q.filter.Match(sum, in.Address) {
				return false, nil
			}
			otp, ok := code(sum.Subject)
			if !ok {
				m, err := s.views.MessageIn(ctx, in, sum.ID)
				if tempmail.KindOf(err) == tempmail.NotFound {
					return false, nil
				}
				if err != nil {
					return false, err
				}
				if otp, ok = code(m.Text); !ok {
					return false, nil
				}
			}
			out = &otpC{OTP: otp, MessageID: sum.ID, Subject: sum.Subject, From: sum.From, ReceivedAt: wire.Time(sum.ReceivedAt)}
			return true, nil
		})
		if err != nil || out == nil {
			return nil, false, err
		}
		return *out, true, nil
	}
}
