package family

import (
	"context"
	"net/http"
	"regexp"
	"slices"

	"tempmail"
	"tempmail/mailbox"
	"tempmail/projections"
)

// Finding a one-time code or a link in the newest messages (GET
// .../otp/ and .../link/): a scan of the newest messages only, a chunk at
// a time, with a bounded regular expression.

// ScanChunk is how many messages a scan reads at a time.
const ScanChunk = 8

// Scan looks through an inbox's messages for a held request, newest first,
// a few at a time, and stops at the first that is what it looks for. It
// remembers where the list began when it last looked through it all in
// vain: looking again on the inbox's next change, it goes only as far as
// that, since what lies beyond was looked at (or was deleted). So a held
// request costs what is new on each change, not what the inbox holds.
type Scan struct {
	seen string // the newest message of the last whole, quiet, vain look
}

// NewestFirst calls visit for in's messages newest first, joined, down to
// (not including) the first one after names and the one sc saw last,
// until visit says it found what it looks for.
func (sc *Scan) NewestFirst(ctx context.Context, views *projections.Reader, in *projections.Inbox, after string,
	visit func(*projections.Summary) (found bool, err error)) error {
	newest := ""
	for offset := 0; ; offset += ScanChunk {
		l, err := views.List(ctx, in, mailbox.Query{Offset: offset, Limit: ScanChunk})
		if err != nil {
			return err
		}
		for i := range l.Items {
			m := &l.Items[i]
			if m.ID == sc.seen || (after != "" && m.ID <= after) {
				return sc.LookedInVain(ctx, views, in, newest)
			}
			if newest == "" {
				newest = m.ID
			}
			if found, err := visit(m); found || err != nil {
				return err
			}
		}
		if len(l.Items) < ScanChunk {
			return sc.LookedInVain(ctx, views, in, newest)
		}
	}
}

// LookedInVain remembers the newest message of a look that found nothing,
// if the inbox did not change while it looked: a deletion meanwhile may
// have shifted a message past it unseen.
func (sc *Scan) LookedInVain(ctx context.Context, views *projections.Reader, in *projections.Inbox, newest string) error {
	now, err := views.Inbox(ctx, in.ID)
	if err == nil && now.Seq == in.Seq && newest != "" {
		sc.seen = newest
	}
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil // it ended; the next look says so
	}
	return err
}

// DefaultOTPPattern finds a six-digit code.
const DefaultOTPPattern = `\b\d{6}\b`

// CodesIn returns the codes re finds in text, at most n of them, each
// once, in order: of each match, its first capture group if the pattern
// has one, else the whole match. It looks at the first 8n matches alone,
// so that a text of many repeats costs what n asks.
func CodesIn(re *regexp.Regexp, text string, n int) []string {
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

var ErrNoLink = tempmail.Errorf(tempmail.NotFound, "No link")

// Bounds on one look for a link: the newest messages that pass the
// filters, read LinkPage at a time, at most LinkSearch of them. A code
// or link worth waiting for is in one of the newest; a look through an
// inbox of thousands would cost as many content reads at every wake.
const (
	LinkPage   = 20
	LinkSearch = 200
)

// PatternParam compiles the pattern parameter (RE2, at most 512 bytes), or
// def when it is absent; nil when both are empty.
func PatternParam(r *http.Request, def string) (*regexp.Regexp, error) {
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
