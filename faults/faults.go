package faults

import (
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"strings"
	"time"

	"tempmail"
)

// Commands a rule can act at. An inbox's rules act from RCPT on, where
// the inbox is known; the service's at any of them.
const (
	// CONNECT answers the connection in place of the 220 greeting (a 421
	// pauses intake), or closes it.
	CONNECT = "CONNECT"
	// EHLO answers EHLO or HELO.
	EHLO = "EHLO"
	// MAIL answers MAIL FROM.
	MAIL = "MAIL"
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
	// or a pattern where * stands for any run of characters; To (the
	// service's rules) to recipients, the same way; Client to clients in
	// a prefix ("192.0.2.0/24", or an address).
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Client string `json:"client,omitempty"`
	// Greylist, at RCPT: the first attempt of a client, sender and
	// recipient is refused (451 4.7.1 unless Reply says otherwise), and
	// its retries too until this long after it.
	Greylist Duration `json:"greylist,omitempty"`
	// Rate, the service's rules at CONNECT or MAIL: each client may pass
	// this many a minute (a token bucket, per node); beyond, the reply
	// (421 4.7.0 unless Reply says otherwise).
	Rate int `json:"rate,omitempty"`
	// Priority: rules with a higher one are asked first; then the oldest.
	Priority  int       `json:"priority,omitempty"`
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

// Scope is whose a rule is: what it may act at and match.
type Scope int

const (
	// InboxScope: an inbox's, on its own mail, from RCPT on.
	InboxScope Scope = iota
	// TenantScope: a tenant's, on the mail of its inboxes, from RCPT on;
	// it may match recipients and clients.
	TenantScope
	// ServiceScope: the admin's, at any command, for everyone it matches.
	ServiceScope
)

func (s Scope) String() string {
	switch s {
	case InboxScope:
		return "an inbox's"
	case TenantScope:
		return "a tenant's"
	}
	return "the service's"
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
	To        string   `json:"to"`
	Client    string   `json:"client"`
	Greylist  Duration `json:"greylist"`
	Rate      int      `json:"rate"`
	Priority  int      `json:"priority"`
	ExpiresIn Duration `json:"expires_in"`
}

// Default replies of greylisting and of a rate.
const (
	GreylistReply = "451 4.7.1 Greylisted, try again later"
	RateReply     = "421 4.7.0 Too much from your address, slow down"
	MaxGreylist   = time.Hour
	MaxRate       = 100000
	MaxPriority   = 1000
)

func invalid(format string, args ...any) error {
	return tempmail.Errorf(tempmail.Invalid, format, args...)
}

// Rule checks a request and makes its rule, with id, made at now, to expire
// at its ExpiresIn (DefaultExpiry when not given) or at until, whichever
// comes first (the inbox's end; zero: none), for whose it is (scope).
func (q Request) Rule(id string, now, until time.Time, scope Scope) (Rule, error) {
	r := Rule{ID: id, Command: strings.ToUpper(strings.TrimSpace(q.Command)), Reply: strings.TrimSpace(q.Reply),
		Times: q.Times, Every: q.Every, Fraction: q.Fraction, Seed: q.Seed, Delay: q.Delay, Close: q.Close,
		From: strings.ToLower(strings.TrimSpace(q.From)), To: strings.ToLower(strings.TrimSpace(q.To)),
		Client: strings.TrimSpace(q.Client), Greylist: q.Greylist, Rate: q.Rate, Priority: q.Priority, CreatedAt: now}
	if err := r.checkCommand(q.Command, scope); err != nil {
		return Rule{}, err
	}
	if err := r.checkAction(); err != nil {
		return Rule{}, err
	}
	if err := r.checkHowOften(); err != nil {
		return Rule{}, err
	}
	if err := r.checkMatch(scope); err != nil {
		return Rule{}, err
	}
	if q.ExpiresIn < 0 {
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

func (r *Rule) checkCommand(asked string, scope Scope) error {
	switch r.Command {
	case RCPT, DATA, AfterData:
	case CONNECT, EHLO, MAIL:
		if scope != ServiceScope {
			return invalid("command %s comes before the recipient is known: %s rule acts at RCPT, DATA or AFTER_DATA", r.Command, scope)
		}
	case "":
		return invalid("command is required: CONNECT, EHLO, MAIL, RCPT, DATA or AFTER_DATA")
	default:
		return invalid("command must be CONNECT, EHLO, MAIL, RCPT, DATA or AFTER_DATA, not %q", bounded(asked))
	}
	return nil
}

func (r *Rule) checkAction() error {
	switch {
	case r.Greylist < 0 || time.Duration(r.Greylist) > MaxGreylist:
		return invalid("greylist must be between 0s and %s", MaxGreylist)
	case r.Greylist > 0 && r.Command != RCPT:
		return invalid("greylisting acts at RCPT, where client, sender and recipient are known")
	case r.Rate < 0 || r.Rate > MaxRate:
		return invalid("rate must be between 1 and %d a minute", MaxRate)
	case r.Rate > 0 && r.Command != CONNECT && r.Command != MAIL:
		return invalid("a rate acts at CONNECT or MAIL")
	case r.Close && r.Reply != "":
		return invalid("a rule either replies or closes the connection: give reply or close, not both")
	case r.Close && (r.Greylist > 0 || r.Rate > 0):
		return invalid("greylisting and a rate reply; they do not close")
	case r.Command == DATA && r.Reply != "":
		return invalid("the server answers DATA with 354 before the message comes: reply after it with command AFTER_DATA, or close mid-message with close")
	case r.Command == DATA && !r.Close && r.Delay == 0:
		return invalid("at DATA a rule closes the connection mid-message (close) or stalls it (delay)")
	case r.Greylist > 0 && r.Reply == "":
		r.Reply = GreylistReply
	case r.Rate > 0 && r.Reply == "":
		r.Reply = RateReply
	case !r.Close && r.Reply == "":
		return invalid("reply is required (such as \"451 4.7.1 try again later\") unless close is true")
	}
	if r.Reply != "" {
		if _, err := ParseReply(r.Reply); err != nil {
			return err
		}
	}
	if r.Delay < 0 || time.Duration(r.Delay) > MaxDelay {
		return invalid("delay must be between 0s and %s", MaxDelay)
	}
	return nil
}

func (r *Rule) checkHowOften() error {
	set := 0
	for _, on := range []bool{r.Times != 0, r.Every != 0, r.Fraction != 0, r.Greylist != 0, r.Rate != 0} {
		if on {
			set++
		}
	}
	switch {
	case set > 1:
		return invalid("give at most one of times, every, fraction, greylist and rate")
	case r.Times < 0 || r.Times > MaxTimes:
		return invalid("times must be between 1 and %d", MaxTimes)
	case r.Every < 0 || r.Every > MaxEvery:
		return invalid("every must be between 1 and %d", MaxEvery)
	case r.Fraction < 0 || r.Fraction > 1 || math.IsNaN(r.Fraction):
		return invalid("fraction must be above 0 and at most 1")
	case r.Seed != 0 && r.Fraction == 0:
		return invalid("seed goes with fraction")
	case r.Priority < -MaxPriority || r.Priority > MaxPriority:
		return invalid("priority must be between %d and %d", -MaxPriority, MaxPriority)
	}
	return nil
}

func (r *Rule) checkMatch(scope Scope) error {
	for _, f := range []struct{ name, v string }{{"from", r.From}, {"to", r.To}} {
		switch {
		case len(f.v) > MaxPattern:
			return invalid("%s is longer than %d bytes", f.name, MaxPattern)
		case !printable(f.v):
			return invalid("%s must be printable ASCII without spaces", f.name)
		}
	}
	if scope == InboxScope && (r.To != "" || r.Client != "") {
		return invalid("an inbox's rule acts on its own mail: to and client are a tenant's or the service's rules'")
	}
	if r.To != "" && (r.Command == CONNECT || r.Command == EHLO || r.Command == MAIL) {
		return invalid("to matches recipients, known from RCPT on")
	}
	if r.Client != "" {
		p, err := parsePrefix(r.Client)
		if err != nil {
			return invalid("client must be an address or a prefix such as 192.0.2.0/24")
		}
		r.Client = p.String()
	}
	return nil
}

// parsePrefix reads an address or a prefix.
func parsePrefix(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	return p.Masked(), err
}
