package tempmail

import (
	"strings"
	"unicode/utf8"
)

// Truncate cuts s to at most n bytes without splitting a UTF-8 sequence,
// and replaces invalid UTF-8 with U+FFFD first, so that what it returns
// encodes to JSON and back unchanged. Every bound on text the service
// keeps or shows (a subject, a header, a value quoted in an error) cuts
// here.
func Truncate(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Excerpt is Truncate that marks a cut with "…": for a value quoted back
// to whoever sent it.
func Excerpt(s string, n int) string {
	if t := Truncate(s, n); len(t) < len(s) {
		return t + "…"
	}
	return s
}
