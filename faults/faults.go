package faults

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	"tempmail"
)

// Commands a rule of an inbox can act at. The inbox is known from RCPT
// on: CONNECT, EHLO and MAIL come before any recipient.
const (
	// RCPT refuses the recipient (its other recipients stand).
	RCPT = "RCPT"
	// DATA acts while the message's data comes: closing the connection
	// mid-message, or a delay before the data is read. go-smtp answers
	// the DATA command itself (354) before the data, so a reply is given
	// at AFTER_DATA.
	DATA = "DATA"
	// AfterData answers the end of the data in place of the 250: nothing
	// of the message is stored.
	AfterData = "AFTER_DATA"
)

// Bounds of a rule's fields: what one rule can make a session cost.
const (
	MaxDelay      = 60 * time.Second // a tarpit longer than most clients wait is a close
	MaxReplyText  = 200              // bytes of the reply's text
	MaxPattern    = 254              // bytes of a sender pattern: an address's longest
	MaxTimes      = 1000             // attempts a "times" rule acts at
	MaxEvery      = 1000
	MaxPerInbox   = 10 // live rules on one inbox
	DefaultExpiry = time.Hour
)

// Rule is one fault rule of an inbox, as the API shows it.
type Rule struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	// Reply is the whole reply: a 4xx or 5xx code, an optional enhanced
	// code and a text ("451 4.7.1 try again later"); empty when Close.
	Reply string `json:"reply,omitempty"`
	// How often: the first Times matching attempts, every Every-th, or a
	// Fraction of them decided by Seed and the attempt's number (so a
	// test that sets the seed sees the same attempts refused each run);
	// none of them: every matching attempt.
	Times    int     `json:"times,omitempty"`
	Every    int     `json:"every,omitempty"`
	Fraction float64 `json:"fraction,omitempty"`
	Seed     uint64  `json:"seed,omitempty"`
	// Delay is waited before the rule's reply (or before the data is
	// read, at DATA): a slow server.
	Delay Duration `json:"delay,omitempty"`
	// Close closes the connection at the command instead of replying; at
	// DATA, after part of the message came.
	Close bool `json:"close,omitempty"`
	// From, when set, limits the rule to senders it matches: an address,
	// or a pattern where * stands for any run of characters.
	From      string    `json:"from,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Duration is a time.Duration written as Go writes one ("1.5s").
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration such as \"5s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("a duration such as \"5s\"")
	}
	*d = Duration(v)
	return nil
}

// Request is a rule as a client asks for it.
type Request struct {
	Command   string   `json:"command"`
	Reply     string   `json:"reply"`
	Times     int      `json:"times"`
	Every     int      `json:"every"`
	Fraction  float64  `json:"fraction"`
	Seed      uint64   `json:"seed"`
	Delay     Duration `json:"delay"`
	Close     bool     `json:"close"`
	From      string   `json:"from"`
	ExpiresIn Duration `json:"expires_in"`
}

func invalid(format string, args ...any) error {
	return tempmail.Errorf(tempmail.Invalid, format, args...)
}

// Rule checks a request and makes its rule, with id, made at now, to expire
// at its ExpiresIn (DefaultExpiry when not given) or at until, whichever
// comes first (the inbox's end; zero: none).
func (q Request) Rule(id string, now, until time.Time) (Rule, error) {
	r := Rule{ID: id, Command: strings.ToUpper(strings.TrimSpace(q.Command)), Reply: strings.TrimSpace(q.Reply),
		Times: q.Times, Every: q.Every, Fraction: q.Fraction, Seed: q.Seed, Delay: q.Delay, Close: q.Close,
		From: strings.ToLower(strings.TrimSpace(q.From)), CreatedAt: now}
	switch r.Command {
	case RCPT, DATA, AfterData:
	case "":
		return Rule{}, invalid("command is required: RCPT, DATA or AFTER_DATA")
	case "CONNECT", "EHLO", "HELO", "MAIL":
		return Rule{}, invalid("command %s comes before the recipient is known: an inbox's rule acts at RCPT, DATA or AFTER_DATA", r.Command)
	default:
		return Rule{}, invalid("command must be RCPT, DATA or AFTER_DATA, not %q", bounded(q.Command))
	}
	switch {
	case r.Close && r.Reply != "":
		return Rule{}, invalid("a rule either replies or closes the connection: give reply or close, not both")
	case !r.Close && r.Reply == "":
		return Rule{}, invalid("reply is required (such as \"451 4.7.1 try again later\") unless close is true")
	case r.Command == DATA && r.Reply != "":
		return Rule{}, invalid("the server answers DATA with 354 before the message comes: reply after it with command AFTER_DATA, or close mid-message with close")
	}
	if r.Reply != "" {
		if _, err := ParseReply(r.Reply); err != nil {
			return Rule{}, err
		}
	}
	set := 0
	for _, on := range []bool{r.Times != 0, r.Every != 0, r.Fraction != 0} {
		if on {
			set++
		}
	}
	switch {
	case set > 1:
		return Rule{}, invalid("give at most one of times, every and fraction")
	case r.Times < 0 || r.Times > MaxTimes:
		return Rule{}, invalid("times must be between 1 and %d", MaxTimes)
	case r.Every < 0 || r.Every > MaxEvery:
		return Rule{}, invalid("every must be between 1 and %d", MaxEvery)
	case r.Fraction < 0 || r.Fraction > 1 || math.IsNaN(r.Fraction):
		return Rule{}, invalid("fraction must be above 0 and at most 1")
	case r.Seed != 0 && r.Fraction == 0:
		return Rule{}, invalid("seed goes with fraction")
	case r.Delay < 0 || time.Duration(r.Delay) > MaxDelay:
		return Rule{}, invalid("delay must be between 0s and %s", MaxDelay)
	case len(r.From) > MaxPattern:
		return Rule{}, invalid("from is longer than %d bytes", MaxPattern)
	case !printable(r.From):
		return Rule{}, invalid("from must be printable ASCII without spaces")
	case q.ExpiresIn < 0:
		return Rule{}, invalid("expires_in must be positive")
	}
	life := time.Duration(q.ExpiresIn)
	if life == 0 {
		life = DefaultExpiry
	}
	r.ExpiresAt = now.Add(life)
	if !until.IsZero() && until.Before(r.ExpiresAt) {
		r.ExpiresAt = until
	}
	return r, nil
}

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

// Acts says whether the rule acts at its n-th matching attempt (from 1).
func (r *Rule) Acts(n uint64) bool {
	switch {
	case r.Times > 0:
		return n <= uint64(r.Times)
	case r.Every > 0:
		return n%uint64(r.Every) == 0
	case r.Fraction > 0:
		var b [16]byte
		for i := range 8 {
			b[i], b[8+i] = byte(r.Seed>>(8*i)), byte(n>>(8*i))
		}
		return float64(xxhash.Sum64(b[:])>>11)/float64(1<<53) < r.Fraction
	}
	return true
}

// Spent says whether the rule will never act again after n attempts.
func (r *Rule) Spent(n uint64) bool { return r.Times > 0 && n >= uint64(r.Times) }

// Counts says whether the rule needs its attempts counted when it does not
// act: every Nth and a fraction are decided by the attempt's number.
func (r *Rule) Counts() bool { return r.Every > 0 || r.Fraction > 0 }

// Matches says whether the rule acts on an attempt at command from sender
// at time now.
func (r *Rule) Matches(command, from string, now time.Time) bool {
	if r.Command != command || !now.Before(r.ExpiresAt) {
		return false
	}
	return r.From == "" || Match(r.From, strings.ToLower(from))
}

// Match says whether s matches pattern, where * stands for any run of
// characters; at most two runs of s are tried per star, so a pattern costs
// at most len(pattern)*len(s) steps.
func Match(pattern, s string) bool {
	// Iterative glob with one backtrack point: linear-ish, never
	// exponential.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
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
