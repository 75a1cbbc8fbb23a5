package api

import (
	"context"
	"net/http"
	"regexp"
	"slices"

	"tempmail"
	"tempmail/mail"
	"tempmail/projections"
	"tempmail/wire"
)

// Finding a one-time code or a link in the newest messages (GET
// .../otp/ and .../link/): a scan of the newest messages only, a chunk at
// a time, with a bounded regular expression.

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

// defaultOTPPattern finds a six-digit code.
const defaultOTPPattern = `\b\d{6}\b`

func (s *Server) findOTPC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readParams(w, r)
	if !ok {
		return
	}
	re, err := patternParam(r, defaultOTPPattern)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.answerHeld(w, r, in.ID, q.wait, errNoCode, s.findOTP(in.ID, re, q))
}

// findOTP finds the newest message newer than q.after, passing q's filter,
// whose subject or text matches re, trying the subject first. The code is
// the first capture group if the pattern has one, else the whole match.
func (s *Server) findOTP(inboxID string, re *regexp.Regexp, q waitRequest) finder {
	code := func(text string) (string, bool) {
		codes := codesIn(re, text, 1)
		if len(codes) == 0 {
			return "", false
		}
		return codes[0], true
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
			out = &otpC{Code: otp, MessageID: sum.ID, Subject: sum.Subject, From: sum.From, ReceivedAt: wire.At(sum.ReceivedAt)}
			return true, nil
		})
		if err != nil || out == nil {
			return nil, false, err
		}
		return *out, true, nil
	}
}

// codesIn returns the codes re finds in text, at most n of them, each
// once, in order: of each match, its first capture group if the pattern
// has one, else the whole match. It looks at the first 8n matches alone,
// so that a text of many repeats costs what n asks.
func codesIn(re *regexp.Regexp, text string, n int) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, 8*n) {
		code := m[0]
		if len(m) > 1 {
			code = m[1]
		}
		if !slices.Contains(out, code) {
			out = append(out, code)
		}
		if len(out) == n {
			break
		}
	}
	return out
}

var errNoLink = tempmail.Errorf(tempmail.NotFound, "No link")

// Bounds on one look for a link: the newest messages that pass the
// filters, read linkPage at a time, at most linkSearch of them. A code
// or link worth waiting for is in one of the newest; a look through an
// inbox of thousands would cost as many content reads at every wake.
const (
	linkPage   = 20
	linkSearch = 200
)

func (s *Server) findLinkC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readParams(w, r)
	if !ok {
		return
	}
	re, err := patternParam(r, "")
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.answerHeld(w, r, in.ID, q.wait, errNoLink, s.findLink(in.ID, re, q))
}

// patternParam compiles the pattern parameter (RE2, at most 512 bytes), or
// def when it is absent; nil when both are empty.
func patternParam(r *http.Request, def string) (*regexp.Regexp, error) {
	pattern := r.URL.Query().Get("pattern")
	if pattern == "" {
		pattern = def
	}
	if pattern == "" {
		return nil, nil
	}
	if len(pattern) > 512 {
		return nil, tempmail.Errorf(tempmail.Invalid, "invalid pattern: longer than 512 bytes")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, tempmail.Errorf(tempmail.Invalid, "invalid pattern: %v", err)
	}
	return re, nil
}

// findLink finds the newest message newer than q.after, passing q's
// filter, that has a link whose URL matches re (any link when re is nil),
// and answers that message's first such link. A held request looks again
// at every change of the inbox; messages do not change, so each later look
// reads only the messages that arrived since the one before.
func (s *Server) findLink(inboxID string, re *regexp.Regexp, q waitRequest) finder {
	after := q.after
	return func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		newest := ""
	pages:
		for offset := 0; offset < linkSearch; offset += linkPage {
			l, err := s.views.List(ctx, in, projections.Query{Offset: offset, Limit: linkPage, Filter: q.filter})
			if err != nil {
				return nil, false, err
			}
			for _, sum := range l.Items {
				if after != "" && sum.ID <= after {
					break pages // newest first: the rest are older still
				}
				newest = max(newest, sum.ID)
				m, err := s.views.MessageIn(ctx, in, sum.ID)
				if tempmail.KindOf(err) == tempmail.NotFound {
					continue // deleted a moment ago
				}
				if err != nil {
					return nil, false, err
				}
				for _, link := range storedLinks(m) {
					if re == nil || re.MatchString(link.URL) {
						return linkC{Link: link.URL, LinkASCII: mail.ASCII(link.URL), Text: link.Text, MessageID: sum.ID, Subject: sum.Subject,
							From: sum.From, ReceivedAt: wire.At(sum.ReceivedAt)}, true, nil
					}
				}
			}
			if len(l.Items) < linkPage {
				break
			}
		}
		after = max(after, newest)
		return nil, false, nil
	}
}
