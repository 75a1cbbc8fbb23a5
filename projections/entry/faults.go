package entry

import (
	"slices"
	"time"

	"tempmail/faults"
	"tempmail/projections/view"
)

// AttemptsKept bounds the attempts an inbox's entry keeps (and the log,
// which forgets the older): the newest, which a test asserts on.
const AttemptsKept = 50

// FaultState is what a holder of fault rules keeps (an inbox its own; the
// service the admin's, in FaultList): its live rules, oldest first, and
// the newest attempts since it first had one, oldest first, at most
// AttemptsKept (ServiceAttemptsKept for the service). Seq is the last
// event of its fault subject applied, which the next one expects
// (events.Store.AppendFault); Moot are events of that subject nothing
// shows any more, which the log forgets once a newer one is applied (the
// subject's last event must stay, for the next to expect it).
type FaultState struct {
	Rules    []FaultRule `json:"f,omitempty"`
	Attempts []Attempt   `json:"a,omitempty"`
	Seq      uint64      `json:"s"`
	Moot     []uint64    `json:"m,omitempty"`
}

// FaultList is the service's fault rules, the admin's, and their
// attempts: one entry of the system partition.
type FaultList struct {
	view.Meta
	FaultState
}

func (l *FaultList) Clone() view.Record { c := *l; c.FaultState = l.FaultState.clone(); return &c }

// clone copies the state so that the copy shares nothing the appliers
// change in place.
func (st FaultState) clone() FaultState {
	st.Rules, st.Attempts, st.Moot = slices.Clone(st.Rules), slices.Clone(st.Attempts), slices.Clone(st.Moot)
	return st
}

// AttemptLife is how long an attempt log keeps an attempt: readers skip
// older ones, and the next change of the log forgets them.
const AttemptLife = 7 * 24 * time.Hour

// Expired says whether an attempt is past AttemptLife at now.
func (a *Attempt) Expired(now time.Time) bool { return now.Sub(time.UnixMilli(a.At)) >= AttemptLife }

// ServiceAttemptsKept bounds the attempts the service's rules keep.
const ServiceAttemptsKept = 200

// FaultRule is a live fault rule, with its counts.
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
	To        string `json:"to,omitempty"` // the recipient, at the service's rules
	Command   string `json:"command"`
	Code      int    `json:"code,omitempty"`
	Reply     string `json:"reply,omitempty"`
	RuleID    string `json:"rule,omitempty"`
	Acted     bool   `json:"acted,omitempty"`
	MessageID string `json:"message,omitempty"`
}
