package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/mail"
	"tempmail/projections"
)

// The MailSlurp family's mail (compat_mailslurp.go): the waits
// (waitForLatestEmail, waitForNthEmail, waitForMatchingFirstEmail,
// waitForEmailCount, waitForMatchingEmails), an inbox's emails, an email whole, deleted, and what the SDK finds in one:
// codes, content matching a pattern, text lines, links, attachments.
//
// A wait is a held request (hold, waiting.go), for at most the client's
// timeout and mailslurpMaxWait; nothing found is 408, as MailSlurp
// answers. An email a wait or getEmail answers is marked read, as
// MailSlurp does, so that unreadOnly waits for the next one.

// mailslurpWait reads what every wait is asked: the inbox, the timeout
// and which messages count. On failure it has answered.
func (s *Server) mailslurpWait(w http.ResponseWriter, r *http.Request) (*projections.Inbox, mailslurpWaitRequest, bool) {
	var q mailslurpWaitRequest
	err := mailslurpMay(r, false)
	if err == nil {
		q.wait, err = mailslurpTimeout(r, "timeout", mailslurpMaxWait)
	}
	if err == nil {
		q.which, err = readWhich(r)
	}
	var in *projections.Inbox
	if err == nil {
		in, err = s.mailslurpInbox(r, r.URL.Query().Get("inboxId"))
	}
	if err != nil {
		s.mailslurpFail(w, r, err)
		return nil, q, false
	}
	return in, q, true
}

type mailslurpWaitRequest struct {
	wait  time.Duration
	which mailslurpWhich
}

// answerEmail marks a found message read and answers it whole.
func (s *Server) answerEmail(w http.ResponseWriter, r *http.Request, in *projections.Inbox, m *projections.Message) {
	if !m.IsRead {
		read, err := s.commands.MarkRead(r.Context(), m)
		switch {
		case err == nil:
			m = read
		case tempmail.KindOf(err) != tempmail.NotFound: // deleted a moment ago: answered as it was
			s.mailslurpFail(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, toMailSlurpEmail(m, in.TenantID))
}

// timedOutMsg is a wait's 408: what it waited for, and how long.
func timedOutMsg(in *projections.Inbox, what string, q mailslurpWaitRequest) string {
	return fmt.Sprintf("Failed to satisfy email query for inbox %s (%s): %s after %d ms", in.ID, in.Address, what,
		q.wait.Milliseconds())
}

func (s *Server) mailslurpWaitForLatest(w http.ResponseWriter, r *http.Request) {
	in, q, ok := s.mailslurpWait(w, r)
	if !ok {
		return
	}
	s.mailslurpHeld(w, r, in.ID, q.wait, timedOutMsg(in, "no email arrived", q), s.latestMailSlurp(in.ID, q.which),
		func(v any) { s.answerEmail(w, r, in, v.(*projections.Message)) })
}

// latestMailSlurp finds the newest message q looks for.
func (s *Server) latestMailSlurp(inboxID string, q mailslurpWhich) finder {
	var sc scan
	return func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		var latest string
		if !q.any() {
			m, err := s.views.Latest(ctx, in)
			if err != nil || m == nil {
				return nil, false, err
			}
			latest = m.ID
		} else {
			err := sc.newestFirst(ctx, s.views, in, "", func(m *projections.Summary) (bool, error) {
				if q.passes(m) {
					latest = m.ID
				}
				return latest != "", nil
			})
			if err != nil || latest == "" {
				return nil, false, err
			}
		}
		return s.foundMessage(ctx, in, latest)
	}
}

// foundMessage reads the message a finder found; one deleted a moment
// ago is none (the next change tells).
func (s *Server) foundMessage(ctx context.Context, in *projections.Inbox, id string) (any, bool, error) {
	m, err := s.views.MessageIn(ctx, in, id)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return m, true, nil
}

func (s *Server) mailslurpWaitForNth(w http.ResponseWriter, r *http.Request) {
	in, q, ok := s.mailslurpWait(w, r)
	if !ok {
		return
	}
	index, err := mailslurpInt(r, "index", 0, 0, s.cfg.MaxMessagesPerInbox)
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	s.mailslurpHeld(w, r, in.ID, q.wait, timedOutMsg(in, fmt.Sprintf("no email at index %d", index), q),
		s.nthMailSlurp(in.ID, index, q.which),
		func(v any) { s.answerEmail(w, r, in, v.(*projections.Message)) })
}

// nthMailSlurp finds the index-th message (from 0, oldest first) of those
// q looks for.
func (s *Server) nthMailSlurp(inboxID string, index int, q mailslurpWhich) finder {
	return func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		if !q.any() {
			// Newest first: the index-th oldest is a page of one.
			if index >= in.Count {
				return nil, false, nil
			}
			l, err := s.views.List(ctx, in, projections.Query{Offset: in.Count - 1 - index, Limit: 1})
			if err != nil || len(l.Items) == 0 {
				return nil, false, err
			}
			return s.foundMessage(ctx, in, l.Items[0].ID)
		}
		var id string
		err = s.oldestFirst(ctx, in, func(m *projections.Summary) bool {
			if q.passes(m) {
				if index == 0 {
					id = m.ID
					return true
				}
				index--
			}
			return false
		})
		if err != nil || id == "" {
			return nil, false, err
		}
		return s.foundMessage(ctx, in, id)
	}
}

// oldestFirst calls visit for in's messages, joined, oldest first, until
// it says it found what it looks for. It reads the whole list (the
// per-inbox cap bounds it): the waits that count from the oldest look
// again, whole, at each change of the inbox.
func (s *Server) oldestFirst(ctx context.Context, in *projections.Inbox, visit func(*projections.Summary) bool) error {
	list, err := s.views.Messages(ctx, in)
	if err != nil {
		return err
	}
	for i := len(list) - 1; i >= 0; i-- {
		if visit(&list[i]) {
			return nil
		}
	}
	return nil
}

// mailslurpMatchOption is one of MatchOptions' matches: field should
// CONTAIN or EQUAL value.
type mailslurpMatchOption struct {
	Field  string `json:"field"`
	Should string `json:"should"`
	Value  string `json:"value"`
}

// Bounds on MatchOptions.
const (
	maxMatchOptions = 16
	maxMatchValue   = 256
)

// readMatchOptions reads MatchOptions: matches on SUBJECT, TO, CC or FROM,
// each CONTAIN or EQUAL; conditions are not supported.
func readMatchOptions(r *http.Request) ([]mailslurpMatchOption, error) {
	var body struct {
		Matches    []mailslurpMatchOption `json:"matches"`
		Conditions []json.RawMessage      `json:"conditions"`
	}
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	switch {
	case len(body.Conditions) > 0:
		return nil, tempmail.Errorf(tempmail.Invalid, "matchOptions.conditions are not supported by tempmail's MailSlurp family: use matches")
	case len(body.Matches) > maxMatchOptions:
		return nil, tempmail.Errorf(tempmail.Invalid, "matchOptions.matches holds at most %d matches", maxMatchOptions)
	}
	for _, m := range body.Matches {
		switch {
		case !slices.Contains([]string{"SUBJECT", "TO", "CC", "FROM"}, m.Field):
			return nil, tempmail.Errorf(tempmail.Invalid, "match field %q is not supported: SUBJECT, TO, CC or FROM",
				tempmail.Excerpt(m.Field, 32))
		case m.Should != "CONTAIN" && m.Should != "EQUAL":
			return nil, tempmail.Errorf(tempmail.Invalid, "match should %q is not supported: CONTAIN or EQUAL",
				tempmail.Excerpt(m.Should, 32))
		case len(m.Value) > maxMatchValue:
			return nil, tempmail.Errorf(tempmail.Invalid, "a match value is at most %d bytes", maxMatchValue)
		}
	}
	return body.Matches, nil
}

// matches reports whether a message to address passes every option: a
// subject is compared as it is, addresses in any case.
func matches(opts []mailslurpMatchOption, m *projections.Summary, address string) bool {
	for _, o := range opts {
		var values []string
		fold := true
		switch o.Field {
		case "SUBJECT":
			values, fold = []string{m.Subject}, false
		case "FROM":
			values = []string{m.From}
		case "TO":
			values = append([]string{address}, m.To...)
		case "CC":
			values = m.Cc
		}
		if !slices.ContainsFunc(values, func(v string) bool {
			want := o.Value
			if fold {
				v, want = strings.ToLower(v), strings.ToLower(want)
			}
			if o.Should == "EQUAL" {
				return v == want
			}
			return strings.Contains(v, want)
		}) {
			return false
		}
	}
	return true
}

func (s *Server) mailslurpWaitForMatchingFirst(w http.ResponseWriter, r *http.Request) {
	in, q, ok := s.mailslurpWait(w, r)
	if !ok {
		return
	}
	opts, err := readMatchOptions(r)
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	s.mailslurpHeld(w, r, in.ID, q.wait, timedOutMsg(in, "no email matched", q), s.matchingMailSlurp(in.ID, opts, q.which),
		func(v any) { s.answerEmail(w, r, in, v.(*projections.Message)) })
}

// matchingMailSlurp finds the oldest message q looks for that passes opts.
func (s *Server) matchingMailSlurp(inboxID string, opts []mailslurpMatchOption, q mailslurpWhich) finder {
	return func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		var id string
		err = s.oldestFirst(ctx, in, func(m *projections.Summary) bool {
			if q.passes(m) && matches(opts, m, in.Address) {
				id = m.ID
			}
			return id != ""
		})
		if err != nil || id == "" {
			return nil, false, err
		}
		return s.foundMessage(ctx, in, id)
	}
}

func (s *Server) mailslurpWaitForCount(w http.ResponseWriter, r *http.Request) {
	s.mailslurpWaitForMany(w, r, nil)
}

func (s *Server) mailslurpWaitForMatching(w http.ResponseWriter, r *http.Request) {
	opts, err := readMatchOptions(r)
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	s.mailslurpWaitForMany(w, r, opts)
}

// mailslurpWaitForMany answers waitForEmailCount and waitForMatchingEmails:
// the oldest count messages q looks for that pass opts (none: every one),
// once there are that many, as previews; none is marked read.
func (s *Server) mailslurpWaitForMany(w http.ResponseWriter, r *http.Request, opts []mailslurpMatchOption) {
	in, q, ok := s.mailslurpWait(w, r)
	if !ok {
		return
	}
	count, err := mailslurpInt(r, "count", 0, 1, maxLimit)
	if err == nil && count == 0 {
		err = tempmail.Errorf(tempmail.Invalid, "count is required: a whole number from 1 to %d", maxLimit)
	}
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	find := func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, in.ID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		var list []projections.Summary
		err = s.oldestFirst(ctx, in, func(m *projections.Summary) bool {
			if q.which.passes(m) && matches(opts, m, in.Address) {
				list = append(list, *m)
			}
			return len(list) == count
		})
		if err != nil || len(list) < count {
			return nil, false, err
		}
		return list, true, nil
	}
	s.mailslurpHeld(w, r, in.ID, q.wait, timedOutMsg(in, fmt.Sprintf("fewer than %d emails", count), q), find, func(v any) {
		list := v.([]projections.Summary)
		writePage(w, len(list), func(i int) any { return toMailSlurpPreview(in, &list[i]) })
	})
}

// mailslurpInboxEmails lists an inbox's emails (GET
// /inboxes/{inboxId}/emails), oldest first unless sort=DESC, at most
// limit or size (default 100, at most 200). With minCount, the request is
// held until the inbox holds that many, for at most retryTimeout.
func (s *Server) mailslurpInboxEmails(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailslurpInboxOf(r, false)
	var q mailslurpWhich
	if err == nil {
		q, err = readWhich(r)
	}
	limit, minCount := 100, 0
	if err == nil {
		limit, err = mailslurpInt(r, "size", limit, 1, maxLimit)
	}
	if err == nil {
		limit, err = mailslurpInt(r, "limit", limit, 1, maxLimit)
	}
	if err == nil {
		minCount, err = mailslurpInt(r, "minCount", 0, 0, s.cfg.MaxMessagesPerInbox)
	}
	var wait time.Duration
	if err == nil && minCount > 0 {
		wait, err = mailslurpTimeout(r, "retryTimeout", mailslurpMaxWait)
	}
	desc := false
	if err == nil {
		switch r.URL.Query().Get("sort") {
		case "", "ASC":
		case "DESC":
			desc = true
		default:
			err = tempmail.Errorf(tempmail.Invalid, "sort must be ASC or DESC")
		}
	}
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	find := func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, in.ID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		var list []projections.Summary
		err = s.oldestFirst(ctx, in, func(m *projections.Summary) bool {
			if q.passes(m) {
				list = append(list, *m)
			}
			return false
		})
		if err != nil || len(list) < minCount {
			return nil, false, err
		}
		if desc {
			slices.Reverse(list)
		}
		return list[:min(limit, len(list))], true, nil
	}
	msg := fmt.Sprintf("Failed to satisfy email query for inbox %s (%s): expected at least %d emails after %d ms", in.ID,
		in.Address, minCount, wait.Milliseconds())
	s.mailslurpHeld(w, r, in.ID, wait, msg, find, func(v any) {
		list := v.([]projections.Summary)
		writePage(w, len(list), func(i int) any { return toMailSlurpPreview(in, &list[i]) })
	})
}

// mailslurpEmailOf finds the email of the path's {emailId}, and its inbox.
func (s *Server) mailslurpEmailOf(r *http.Request, write bool) (*projections.Message, *projections.Inbox, error) {
	if err := mailslurpMay(r, write); err != nil {
		return nil, nil, err
	}
	id := chi.URLParam(r, "emailId")
	m, in, err := s.messageByID(r.Context(), id)
	return m, in, asNotFound(err, "Email not found: "+tempmail.Excerpt(id, 64))
}

func (s *Server) mailslurpGetEmail(w http.ResponseWriter, r *http.Request) {
	m, in, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	s.answerEmail(w, r, in, m)
}

func (s *Server) mailslurpDeleteEmail(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, true)
	if err == nil {
		err = asNotFound(s.commands.DeleteMessage(r.Context(), m), "Email not found")
	}
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mailslurpCodeOptions are ExtractCodesOptions: the method (PATTERN is
// what tempmail has; the others fall back to it, with a warning), the
// length of a code, how many candidates, and patterns of the caller's.
type mailslurpCodeOptions struct {
	Method         string   `json:"method"`
	MinLength      *int     `json:"minLength"`
	MaxLength      *int     `json:"maxLength"`
	MaxCandidates  *int     `json:"maxCandidates"`
	CustomPatterns []string `json:"customPatterns"`
}

// Bounds on code extraction.
const (
	maxCodeLength     = 32
	maxCodeCandidates = 20
	maxCodePatterns   = 8
	maxPatternLen     = 512
)

// codePatterns are the patterns opts ask for: theirs, or digits of
// minLength to maxLength (default six, as .../otp/ finds).
func codePatterns(opts mailslurpCodeOptions) ([]*regexp.Regexp, error) {
	if len(opts.CustomPatterns) > maxCodePatterns {
		return nil, tempmail.Errorf(tempmail.Invalid, "customPatterns holds at most %d patterns", maxCodePatterns)
	}
	var out []*regexp.Regexp
	for _, p := range opts.CustomPatterns {
		re, err := compilePattern(p)
		if err != nil {
			return nil, err
		}
		out = append(out, re)
	}
	if len(out) > 0 {
		return out, nil
	}
	if opts.MinLength == nil && opts.MaxLength == nil {
		return []*regexp.Regexp{regexp.MustCompile(defaultOTPPattern)}, nil
	}
	lo, hi := 4, 8
	if opts.MinLength != nil {
		lo = *opts.MinLength
	}
	if opts.MaxLength != nil {
		hi = *opts.MaxLength
	}
	if lo < 1 || hi > maxCodeLength || lo > hi {
		return nil, tempmail.Errorf(tempmail.Invalid, "minLength and maxLength must be from 1 to %d, minLength the smaller", maxCodeLength)
	}
	return []*regexp.Regexp{regexp.MustCompile(fmt.Sprintf(`\b\d{%d,%d}\b`, lo, hi))}, nil
}

// compilePattern compiles a caller's pattern (RE2, at most maxPatternLen
// bytes).
func compilePattern(p string) (*regexp.Regexp, error) {
	if len(p) > maxPatternLen {
		return nil, tempmail.Errorf(tempmail.Invalid, "invalid pattern: longer than %d bytes", maxPatternLen)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, tempmail.Errorf(tempmail.Invalid, "invalid pattern: %v", err)
	}
	return re, nil
}

// mailslurpEmailCodes finds codes in an email (POST
// /emails/{emailId}/codes): with each pattern, in its subject, then its
// text (codesIn, as .../otp/ finds them).
func (s *Server) mailslurpEmailCodes(w http.ResponseWriter, r *http.Request) {
	var opts mailslurpCodeOptions
	m, _, err := s.mailslurpEmailOf(r, false)
	if err == nil {
		err = decodeBody(r, &opts)
	}
	var patterns []*regexp.Regexp
	if err == nil {
		patterns, err = codePatterns(opts)
	}
	n := 5
	if err == nil && opts.MaxCandidates != nil {
		if n = *opts.MaxCandidates; n < 1 || n > maxCodeCandidates {
			err = tempmail.Errorf(tempmail.Invalid, "maxCandidates must be from 1 to %d", maxCodeCandidates)
		}
	}
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	out := mailslurpCodes{MethodUsed: "PATTERN", Candidates: []mailslurpCandidate{}, Warnings: []string{}}
	if opts.Method != "" && opts.Method != "PATTERN" && opts.Method != "AUTO" {
		out.Warnings = append(out.Warnings, "method "+tempmail.Excerpt(opts.Method, 32)+" is not supported here: PATTERN was used")
	}
	seen := map[string]bool{}
	for _, re := range patterns {
		for _, part := range []struct{ source, text string }{{"SUBJECT", m.Subject}, {"TEXT", m.Text}} {
			for _, code := range codesIn(re, part.text, n) {
				if len(out.Candidates) < n && !seen[code] {
					seen[code] = true
					out.Candidates = append(out.Candidates, mailslurpCandidate{Code: code, Confidence: 1, Method: "PATTERN", Source: part.source})
				}
			}
		}
	}
	if len(out.Candidates) > 0 {
		out.Found, out.Code = true, &out.Candidates[0].Code
	}
	writeJSON(w, http.StatusOK, out)
}

// mailslurpContentMatch matches a pattern against an email's text (its
// HTML when the text has no match): POST /emails/{emailId}/contentMatch.
// matches is the whole match, then its groups; [] for none.
func (s *Server) mailslurpContentMatch(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Pattern string `json:"pattern"`
	}
	m, _, err := s.mailslurpEmailOf(r, false)
	if err == nil {
		err = decodeBody(r, &body)
	}
	if err == nil && body.Pattern == "" {
		err = tempmail.Errorf(tempmail.Invalid, "pattern is required")
	}
	var re *regexp.Regexp
	if err == nil {
		re, err = compilePattern(body.Pattern)
	}
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	found := re.FindStringSubmatch(m.Text)
	if found == nil {
		found = re.FindStringSubmatch(m.HTML)
	}
	writeJSON(w, http.StatusOK, mailslurpMatch{Pattern: body.Pattern, Matches: orEmpty(found)})
}

// mailslurpTextLines is an email's text by lines, blank lines left out:
// GET /emails/{emailId}/textLines.
func (s *Server) mailslurpTextLines(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	lines := []string{}
	for line := range strings.Lines(m.Text) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	writeJSON(w, http.StatusOK, mailslurpLines{Lines: lines, Body: longText(m.Text)})
}

// mailslurpLinks is an email's links: GET /emails/{emailId}/links.
func (s *Server) mailslurpLinks(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	links := []string{}
	for _, l := range storedLinks(m) {
		links = append(links, l.URL)
	}
	body, _ := bodyOf(m)
	writeJSON(w, http.StatusOK, mailslurpLinks{Links: links, Body: longText(body)})
}

// mailslurpAttachments is what an email's attachments are: GET
// /emails/{emailId}/attachments.
func (s *Server) mailslurpAttachments(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	out := make([]mailslurpAttachment, 0, len(m.Attachments))
	for _, a := range m.Attachments {
		out = append(out, mailslurpAttachment{ID: a.ID, Name: a.Filename, ContentType: a.ContentType, ContentLength: a.Size})
	}
	writeJSON(w, http.StatusOK, out)
}

// mailslurpDownloadAttachment answers an attachment's bytes: GET
// /emails/{emailId}/attachments/{attachmentId}.
func (s *Server) mailslurpDownloadAttachment(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		s.mailslurpFail(w, r, err)
		return
	}
	id := chi.URLParam(r, "attachmentId")
	i := slices.IndexFunc(m.Attachments, func(a mail.Attachment) bool { return a.ID == id })
	if i < 0 {
		s.mailslurpFail(w, r, tempmail.Errorf(tempmail.NotFound, "Attachment not found: %s", tempmail.Excerpt(id, 80)))
		return
	}
	s.serveAttachment(w, r, familyMailSlurp, m, &m.Attachments[i])
}
