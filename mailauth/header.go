package mailauth

import (
	"bytes"
	"strings"
	"tempmail/mailbox"

	"github.com/emersion/go-msgauth/authres"
	"golang.org/x/text/unicode/norm"
)

// MaxHeaderBytes bounds the Authentication-Results field Header builds
// (with an authserv-id of at most 253 bytes and MaxSignatures results of
// DKIM at most), so that a caller can keep room for it in front of a
// message it holds and never copy the message to add it.
const MaxHeaderBytes = 4096

// Header returns the Authentication-Results header field (RFC 8601) that
// states res under authServID, folded, with its CRLF. Values from the
// message are in it only when they are domain names, so nothing a sender
// wrote can break the field.
func Header(authServID string, res *mailbox.Auth) string {
	spf := &authres.SPFResult{Value: word(res.SPF.Result)}
	if d := cleanDomain(res.SPF.Domain); res.SPF.HELO {
		spf.Helo = d
	} else {
		spf.From = d
	}
	parts := []string{resultText(authServID, spf)}
	dmarc := resultText(authServID, &authres.DMARCResult{Value: word(res.DMARC.Result), From: cleanDomain(res.DMARC.Domain)})
	size := len("Authentication-Results: ") + len(authServID) + len(parts[0]) + len(dmarc) + 16
	for _, d := range res.DKIM {
		// header.s is RFC 8601's; authres has no DKIM result that says it.
		p := resultText(authServID, &authres.GenericResult{Method: "dkim", Value: word(d.Result),
			Params: map[string]string{"header.d": cleanDomain(d.Domain), "header.s": cleanDomain(d.Selector),
				"reason": reasonText(d.Reason)}})
		if size += len(p) + 4; size > MaxHeaderBytes {
			break // only with more signatures than Verifier checks
		}
		parts = append(parts, p)
	}
	parts = append(parts, dmarc)
	return "Authentication-Results: " + authServID + ";\r\n\t" + strings.Join(parts, ";\r\n\t") + "\r\n"
}

// word is a result word of RFC 8601, or none for anything else: a mailbox.Auth
// may come from anywhere, and the header must stay well formed.
func word(s string) authres.ResultValue {
	switch s {
	case Pass, Fail, SoftFail, Neutral, None, TempError, PermError, Policy:
		return authres.ResultValue(s)
	}
	return authres.ResultValue(None)
}

// reasonText is a result's reason as the header may carry it: printable
// ASCII without quotes or backslashes, at most 100 bytes, or nothing. A
// mailbox.Auth may come from anywhere, and the header must stay well formed.
func reasonText(s string) string {
	if len(s) > 100 {
		return ""
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return ""
		}
	}
	return s
}

// resultText is one result as authres formats it, without the
// authserv-id authres puts in front, so that Header can fold between
// results.
func resultText(authServID string, r authres.Result) string {
	s := authres.Format(authServID, []authres.Result{r})
	return strings.TrimSpace(strings.TrimPrefix(s, authServID+"; "))
}

// RemoveOwnResults removes from msg's header block every
// Authentication-Results field that claims authServID, as RFC 8601
// section 5 asks of a receiver: only its own may say what it checked. It
// works in place and returns the message, a prefix of msg; msg is
// returned as it is when there is no such field.
func RemoveOwnResults(msg []byte, authServID string) []byte {
	ours := servIDKey(authServID)
	w, r := 0, 0 // bytes kept so far end at w; bytes from r on are not yet looked at
	eachField(msg, func(name []byte, start, end int) bool {
		if !bytes.EqualFold(name, []byte("Authentication-Results")) {
			return true
		}
		colon := start + bytes.IndexByte(msg[start:end], ':')
		if !sameServID(authServIDOf(msg[colon+1:end]), ours) {
			return true
		}
		w += copy(msg[w:], msg[r:start])
		r = end
		return true
	})
	if r == 0 {
		return msg
	}
	w += copy(msg[w:], msg[r:])
	return msg[:w]
}

// sameServID says whether id, as a field gives it, claims to be ours (as
// servIDKey gives it): what a reader would take for our name is ours.
func sameServID(id, ours string) bool {
	return len(id) <= 1024 && servIDKey(id) == ours
}

// servIDKey is an authserv-id as a reader sees it: compatibility forms
// folded (NFKC: full-width letters, U+2024 ONE DOT LEADER and the small
// and full-width full stops become ASCII), the remaining characters that
// look like a dot made one, lower case, and without final dots
// ("mx.example." names the same host as "mx.example").
func servIDKey(id string) string {
	id = norm.NFKC.String(id)
	id = strings.Map(func(r rune) rune {
		if lookAlikeDot(r) {
			return '.'
		}
		return r
	}, id)
	return strings.TrimRight(strings.ToLower(id), ".")
}

// lookAlikeDot tells the characters that read as a full stop in a host
// name and that NFKC leaves: the ideographic full stops (which IDNA
// itself takes for dots), middle dots, dot operators, and the full stops
// of other scripts.
func lookAlikeDot(r rune) bool {
	switch r {
	case '\u3002', '\uFF61', '\u00B7', '\u0387', '\u2027', '\u2219', '\u22C5', '\u30FB', '\uFF65',
		'\u06D4', '\u0701', '\u0702', '\u2E31', '\u2E33', '\uA60E', '\uA4F8', '\U00010A50', '\U0001D16D':
		return true
	}
	return false
}

// authServIDOf returns the authserv-id an Authentication-Results value
// begins with: its first word after any white space and comments (RFC
// 8601 section 2.2), unquoted. A sender cannot hide our id from the check
// behind a comment that a reader of the header would skip.
func authServIDOf(v []byte) string {
	i := skipCFWS(v, 0)
	if i < len(v) && v[i] == '"' {
		var b strings.Builder
		for i++; i < len(v) && v[i] != '"'; i++ {
			if v[i] == '\\' && i+1 < len(v) {
				i++
			}
			b.WriteByte(v[i])
		}
		return b.String()
	}
	j := i
	for j < len(v) && !bytes.ContainsRune([]byte(" \t\r\n;("), rune(v[j])) {
		j++
	}
	return string(v[i:j])
}

// skipCFWS skips white space and comments, which nest, from v[i].
func skipCFWS(v []byte, i int) int {
	depth := 0
	for ; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && depth > 0:
			i++
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth > 0, c == ' ', c == '\t', c == '\r', c == '\n':
		default:
			return i
		}
	}
	return i
}

// eachField calls fn with every field of msg's header block, as a DKIM
// verifier reads it: the block ends at the first empty line, and every
// other line is a field or, when it begins with white space, continues
// one. name is the field's name (nil for a line with no colon); start and
// end bound the field in msg, its continuation lines and line end
// included. fn returns false to stop.
func eachField(msg []byte, fn func(name []byte, start, end int) bool) {
	start := -1
	var name []byte
	for i := 0; i < len(msg); {
		eol := bytes.IndexByte(msg[i:], '\n')
		next := len(msg)
		if eol >= 0 {
			next = i + eol + 1
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(msg[i:next], []byte("\n")), []byte("\r"))
		if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') && start >= 0 {
			i = next
			continue
		}
		if start >= 0 && !fn(name, start, i) {
			return
		}
		if len(line) == 0 {
			return
		}
		start, name = i, nil
		if colon := bytes.IndexByte(line, ':'); colon >= 0 {
			name = bytes.TrimRight(line[:colon], " \t")
		}
		i = next
	}
	if start >= 0 {
		fn(name, start, len(msg))
	}
}

// maxFieldValue bounds the part of a field's value fieldValues returns:
// what is looked for (a domain, a DKIM tag) comes well before.
const maxFieldValue = 16 << 10

// fieldValues returns the values of the first max fields named name, in
// order, unfolded, each cut at maxFieldValue bytes.
func fieldValues(msg []byte, name string, max int) []string {
	var out []string
	eachField(msg, func(n []byte, start, end int) bool {
		if bytes.EqualFold(n, []byte(name)) {
			colon := start + bytes.IndexByte(msg[start:end], ':')
			end = min(end, colon+1+maxFieldValue)
			v := strings.NewReplacer("\r\n", "", "\n", "").Replace(string(msg[colon+1 : end]))
			out = append(out, strings.TrimSpace(v))
		}
		return len(out) < max
	})
	return out
}
