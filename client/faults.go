package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"tempmail/wire"
)

// Fault rules (docs/failing-on-purpose.md): an inbox's token sets what
// the service's SMTP side answers for deliveries to that inbox instead of
// accepting them (a 4xx or 5xx at one command, a delay, a closed
// connection, greylisting), so that a sender's handling of them can be
// tested; the attempts log says what every delivery to the inbox met. The
// service's rules, the admin's, do the same for every delivery they match
// (AddServiceFault, below).

// FaultCommands are the SMTP commands an inbox's rule acts at, in the
// order a delivery meets them (the inbox is known from RCPT on): RCPT
// refuses the recipient, DATA closes the connection in the middle of the
// message (or stalls it), and AFTER_DATA answers once the message's data has been
// received, in place of the 250 that would store it.
var FaultCommands = []string{"RCPT", "DATA", "AFTER_DATA"}

// ServiceFaultCommands are the commands the service's rules (the
// admin's) act at: CONNECT in place of the 220 greeting, EHLO (or HELO),
// MAIL, and those of an inbox's.
var ServiceFaultCommands = []string{"CONNECT", "EHLO", "MAIL", "RCPT", "DATA", "AFTER_DATA"}

// FaultSpec is a rule to add. Command is required, and Reply unless Close,
// Greylist or Rate (at DATA, Close or Delay is the only action: a reply
// goes at AFTER_DATA). At most one of Times, Every, Fraction, Greylist and
// Rate; with none, the rule acts on every matching attempt. To, Client and
// Rate are for the service's rules alone.
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
	// To (the service's rules) limits the rule to recipients that match,
	// from RCPT on, as From does senders; Client to clients at an address
	// or in a prefix ("192.0.2.0/24").
	To, Client string
	// Greylist, at RCPT, refuses the first attempt of each client and
	// sender (and recipient, for the service's rules) with 451 4.7.1
	// unless Reply says otherwise, and its retries until Greylist has
	// passed since it; at most an hour.
	Greylist time.Duration
	// Rate (the service's rules, at CONNECT or MAIL) lets each client pass
	// this many a minute, per node; beyond, Reply (421 4.7.0 unless given).
	Rate int
	// Priority orders the rules asked, the highest first (-1000 to 1000;
	// then the oldest).
	Priority int
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
		To        string  `json:"to,omitempty"`
		Client    string  `json:"client,omitempty"`
		Greylist  string  `json:"greylist,omitempty"`
		Rate      int     `json:"rate,omitempty"`
		Priority  int     `json:"priority,omitempty"`
		ExpiresIn string  `json:"expires_in,omitempty"`
	}{Command: s.Command, Reply: s.Reply, Times: s.Times, Every: s.Every, Fraction: s.Fraction, Seed: s.Seed,
		Close: s.Close, From: s.From, To: s.To, Client: s.Client, Rate: s.Rate, Priority: s.Priority}
	if s.Delay > 0 {
		out.Delay = s.Delay.String()
	}
	if s.Greylist > 0 {
		out.Greylist = s.Greylist.String()
	}
	if s.ExpiresIn > 0 {
		out.ExpiresIn = s.ExpiresIn.String()
	}
	return json.Marshal(out)
}

// FaultRule is a rule, an inbox's or the service's, as the service shows
// it (a field at its zero value left out of the JSON): its Delay and
// Greylist are Go durations ("5s"; "": none), Matched counts the attempts
// it matched and Fired those it acted on.
type FaultRule struct {
	wire.FaultRule
	// JSON is the service's answer as it came (by AddFault and
	// AddServiceFault; the lists give theirs whole).
	JSON json.RawMessage `json:"-"`
}

// Attempt is one SMTP attempt an attempt log shows: one a rule acted on,
// with the command it acted at, the code and reply it gave (Code 0 when it
// closed the connection) and the rule (RuleID), or one stored (Command
// AFTER_DATA, Code 250, and MessageID). Client, RuleID and MessageID are
// nil when the service has none; To is the recipient, in the service's
// log.
type Attempt = wire.Attempt

// ErrNoFault is what DeleteFault returns when the inbox has no rule with
// the id: deleted already, expired, or never made.
var ErrNoFault = errors.New("the inbox has no rule with this id (deleted, expired, or never made)")

// ErrNoServiceFault is what DeleteServiceFault returns when the service
// has no rule with the id.
var ErrNoServiceFault = errors.New("the service has no rule with this id (deleted, expired, or never made)")

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

// The service's rules (the admin's: the API token or a key with the admin
// scope, in Key) act on every delivery they match, at any command; the
// service's attempt log keeps those its rules acted on.

// AddServiceFault adds a rule of the service's.
func (c *Client) AddServiceFault(ctx context.Context, spec FaultSpec) (*FaultRule, error) {
	body, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var r FaultRule
	raw, err := c.do(ctx, http.MethodPost, "/api/faults/", nil, body, 0, &r)
	r.JSON = raw
	return &r, err
}

// ServiceFaults lists the service's rules that have not expired, oldest
// first, and returns the service's answer as it came.
func (c *Client) ServiceFaults(ctx context.Context) (list []FaultRule, raw json.RawMessage, err error) {
	raw, err = c.do(ctx, http.MethodGet, "/api/faults/", nil, nil, 0, &list)
	return list, raw, err
}

// DeleteServiceFault deletes one of the service's rules: deliveries meet
// it no more. A rule that is not there (and an id that is no rule's) is
// ErrNoServiceFault.
func (c *Client) DeleteServiceFault(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, "/api/faults/"+url.PathEscape(id)+"/", nil, nil, 0, nil)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		// The admin's 404 is the router's words too ("Not found."): a
		// rule not there and an id of no rule's shape are one answer.
		return ErrNoServiceFault
	}
	return err
}

// ServiceAttempts lists the attempts the service's rules acted on, newest
// first: with rcpt, those to that address alone, merged with its inbox's
// own log when it has one; with since (not zero), those at or after it. It
// returns the service's answer as it came.
func (c *Client) ServiceAttempts(ctx context.Context, rcpt string, since time.Time) (list []Attempt, raw json.RawMessage, err error) {
	v := url.Values{}
	if rcpt != "" {
		v.Set("rcpt", rcpt)
	}
	if !since.IsZero() {
		v.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	raw, err = c.do(ctx, http.MethodGet, "/api/attempts/", v, nil, 0, &list)
	return list, raw, err
}
