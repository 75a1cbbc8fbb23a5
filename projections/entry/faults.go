package entry

import "tempmail/faults"

// AttemptsKept bounds the attempts an inbox's entry keeps (and the log,
// which forgets the older): the newest, which a test asserts on.
const AttemptsKept = 50

// FaultRule is a live fault rule of an inbox, with its counts.
type FaultRule struct {
	faults.Rule
	// Seq is its FaultAdded, which leaves the log with the rule.
	Seq uint64 `json:"seq"`
	// N counts the attempts it matched; Acted those it acted on.
	N     uint64 `json:"n,omitempty"`
	Acted uint64 `json:"acted,omitempty"`
}

// Attempt is one SMTP attempt at an inbox with fault rules
// (events.Attempted), as its entry keeps it.
type Attempt struct {
	Seq       uint64 `json:"seq"`
	At        int64  `json:"at"` // Unix milliseconds
	Client    string `json:"client,omitempty"`
	From      string `json:"from"`
	Command   string `json:"command"`
	Code      int    `json:"code,omitempty"`
	Reply     string `json:"reply,omitempty"`
	RuleID    string `json:"rule,omitempty"`
	Acted     bool   `json:"acted,omitempty"`
	MessageID string `json:"message,omitempty"`
}
