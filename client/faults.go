package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// Fault rules (docs/failing-on-purpose.md): an inbox's token sets what
// the service's SMTP side answers for deliveries to that inbox instead of
// accepting them (a 4xx or 5xx at one command, a delay, a closed
// connection), so that a sender's handling of them can be tested; the
// attempts log says what every delivery to the inbox met.

// FaultCommands are the SMTP commands an inbox's rule acts at, in the
// order a delivery meets them (the inbox is known from RCPT on): RCPT
// refuses the recipient, DATA closes the connection in the middle of the
// message, and AFTER_DATA answers once the message's data has been
// received, in place of the 250 that would store it.
var FaultCommands = []string{"RCPT", "DATA", "AFTER_DATA"}

// FaultSpec is a rule to add. Command is required, and Reply unless Close
// (at DATA, Close is the only action: a reply goes at AFTER_DATA). At most
// one of Times, Every and Fraction; with none, the rule acts on every
// matching attempt.
type FaultSpec struct {
	Command string // one of FaultCommands
	// Reply is "CODE [X.Y.Z] text", a 4xx or 5xx code, such as
	// "451 4.7.1 try again later".
	Reply string
	Times int // only the first Times matching attempts; 0: no such bound
	Every int // only every Every-th matching attempt; 0: no such bound
	// Fraction (more than 0, at most 1) acts on that share of the matching
	// attempts, decided by Seed (nil: 0) and the attempt's number, so that
	// a run can be repeated; 0: no such bound.
	Fraction float64
	Seed     *uint64
	// Delay is waited before the reply (or the close), at most 60 s.
	Delay time.Duration
	// Close closes the connection at Command instead of replying (at
	// DATA, in the middle of the message).
	Close bool
	// From limits the rule to senders (MAIL FROM) that match: an exact
	// address or a pattern with '*'; "": any.
	From string
	// ExpiresIn is how long the rule lasts; 0: the service's default, an
	// hour. It ends with the inbox at the latest.
	ExpiresIn time.Duration
}

// MarshalJSON writes the spec as the service reads it: durations as Go
// writes them ("5s"), the fields left at zero left out.
func (s FaultSpec) MarshalJSON() ([]byte, error) {
	out := struct {
		Command   string  `json:"command"`
		Reply     string  `json:"reply,omitempty"`
		Times     int     `json:"times,omitempty"`
		Every     int     `json:"every,omitempty"`
		Fraction  float64 `json:"fraction,omitempty"`
		Seed      *uint64 `json:"seed,omitempty"`
		Delay     string  `json:"delay,omitempty"`
		Close     bool    `json:"close,omitempty"`
		From      string  `json:"from,omitempty"`
		ExpiresIn string  `json:"expires_in,omitempty"`
	}{Command: s.Command, Reply: s.Reply, Times: s.Times, Every: s.Every, Fraction: s.Fraction, Seed: s.Seed,
		Close: s.Close, From: s.From}
	if s.Delay > 0 {
		out.Delay = s.Delay.String()
	}
	if s.ExpiresIn > 0 {
		out.ExpiresIn = s.ExpiresIn.String()
	}
	return json.Marshal(out)
}

// FaultRule is a rule as the service shows it (a field at its zero value
// left out of the JSON).
type FaultRule struct {
	ID        string    `json:"id"`
	Command   string    `json:"command"`
	Reply     string    `json:"reply"`
	Times     int       `json:"times"`
	Every     int       `json:"every"`
	Fraction  float64   `json:"fraction"`
	Seed      uint64    `json:"seed"`
	Delay     string    `json:"delay"` // a Go duration, such as "5s"; "": none
	Close     bool      `json:"close"`
	From      string    `json:"from"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	Matched   uint64    `json:"matched"` // how many attempts it matched
	Fired     uint64    `json:"fired"`   // how many times it acted
	// JSON is the service's answer as it came (by AddFault; Faults gives
	// the list's in FaultsJSON).
	JSON json.RawMessage `json:"-"`
}

// Attempt is one SMTP delivery attempt to an inbox that has, or had,
// fault rules: one a rule acted on, with the command it acted at, the
// code and reply it gave (Code 0 when it closed the connection) and the
// rule (RuleID), or one stored (Command AFTER_DATA, Code 250, and
// MessageID).
type Attempt struct {
	At        time.Time `json:"at"`
	Client    string    `json:"client"` // the sending client's IP address; null: ""
	From      string    `json:"from"`   // MAIL FROM, once given
	Command   string    `json:"command"`
	Code      int       `json:"code"`
	Reply     string    `json:"reply"`
	RuleID    string    `json:"rule_id"`    // null: ""
	MessageID string    `json:"message_id"` // null: ""
}

// ErrNoFault is what DeleteFault returns when the inbox has no rule with
// the id: deleted already, expired, or never made.
var ErrNoFault = errors.New("the inbox has no rule with this id (deleted, expired, or never made)")

// faultsPath is the path of an inbox's rules, and of one of them.
func faultsPath(token string, id ...string) string {
	p := "/inboxes/" + url.PathEscape(token) + "/faults/"
	for _, s := range id {
		p += url.PathEscape(s) + "/"
	}
	return p
}

// AddFault adds a rule to the inbox of token.
func (c *Client) AddFault(ctx context.Context, token string, spec FaultSpec) (*FaultRule, error) {
	body, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var r FaultRule
	raw, err := c.do(ctx, http.MethodPost, faultsPath(token), nil, body, 0, &r)
	r.JSON = raw
	return &r, err
}

// Faults lists the inbox's rules that have not expired, and returns the
// service's answer as it came.
func (c *Client) Faults(ctx context.Context, token string) (list []FaultRule, raw json.RawMessage, err error) {
	raw, err = c.do(ctx, http.MethodGet, faultsPath(token), nil, nil, 0, &list)
	return list, raw, err
}

// DeleteFault deletes one of the inbox's rules: deliveries meet it no
// more. A rule that is not there is ErrNoFault; an inbox that is not
// there, ErrNoInbox.
func (c *Client) DeleteFault(ctx context.Context, token, id string) error {
	_, err := c.do(ctx, http.MethodDelete, faultsPath(token, id), nil, nil, 0, nil)
	var e *Error
	switch {
	case errors.Is(err, ErrNoInbox):
		return err
	case errors.As(err, &e) && e.Status == http.StatusNotFound && !routeNotFound(e.Message):
		// The service's own answer of a rule it has not: not the
		// router's, for a path it does not serve.
		return ErrNoFault
	}
	return err
}

// routeNotFound tells the router's 404, for a path the service does not
// serve (a --server with a path too many, or a service older than the
// call), from a 404 of a thing the path names.
func routeNotFound(msg string) bool {
	return msg == "Not found" || msg == "Not found."
}

// Attempts lists the SMTP delivery attempts to the inbox, newest first,
// and returns the service's answer as it came.
func (c *Client) Attempts(ctx context.Context, token string) (list []Attempt, raw json.RawMessage, err error) {
	raw, err = c.do(ctx, http.MethodGet, "/inboxes/"+url.PathEscape(token)+"/attempts/", nil, nil, 0, &list)
	return list, raw, err
}
