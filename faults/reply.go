package faults

import (
	"strconv"
	"strings"
)

// Reply is an SMTP reply a rule gives.
type Reply struct {
	Code     int
	Enhanced [3]int // zero: none given
	Text     string
}

// ParseReply reads "451 4.7.1 try again later": a code from 400 to 599,
// an optional enhanced code of the same class, and a text of printable
// ASCII. A 421 makes the server close the connection after it, as RFC 5321
// says of 421.
func ParseReply(s string) (Reply, error) {
	fields := strings.SplitN(strings.TrimSpace(s), " ", 3)
	code, err := strconv.Atoi(fields[0])
	if err != nil || len(fields[0]) != 3 || code < 400 || code > 599 {
		return Reply{}, invalid("reply must start with a 4xx or 5xx code, such as \"451 4.7.1 try again later\"")
	}
	r := Reply{Code: code}
	rest := fields[1:]
	if len(rest) > 0 {
		if e, ok := enhanced(rest[0]); ok {
			if e[0] != code/100 {
				return Reply{}, invalid("reply's enhanced code %s must be of the code's class (%d.x.x)", rest[0], code/100)
			}
			r.Enhanced, rest = e, rest[1:]
		}
	}
	r.Text = strings.Join(rest, " ")
	switch {
	case len(r.Text) > MaxReplyText:
		return Reply{}, invalid("reply's text is longer than %d bytes", MaxReplyText)
	case !printableText(r.Text):
		return Reply{}, invalid("reply's text must be printable ASCII")
	}
	if r.Text == "" {
		r.Text = "Refused by a fault rule"
	}
	return r, nil
}

func enhanced(s string) ([3]int, bool) {
	parts := strings.Split(s, ".")
	var e [3]int
	if len(parts) != 3 {
		return e, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 999 || len(p) > 3 {
			return e, false
		}
		e[i] = n
	}
	return e, e[0] == 4 || e[0] == 5
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

func printableText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// bounded cuts what a client sent to a length an error may quote.
func bounded(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}
