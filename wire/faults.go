package wire

// FaultRule is an SMTP fault rule of an inbox, as family C shows it
// (docs/failing-on-purpose.md).
type FaultRule struct {
	ID        string  `json:"id"`
	Command   string  `json:"command"`
	Reply     string  `json:"reply,omitempty"`
	Times     int     `json:"times,omitempty"`
	Every     int     `json:"every,omitempty"`
	Fraction  float64 `json:"fraction,omitempty"`
	Seed      uint64  `json:"seed,omitempty"`
	Delay     string  `json:"delay,omitempty"`
	Close     bool    `json:"close,omitempty"`
	From      string  `json:"from,omitempty"`
	CreatedAt Time    `json:"created_at"`
	ExpiresAt Time    `json:"expires_at"`
	// Matched counts the attempts it matched; Fired those it acted on.
	Matched uint64 `json:"matched"`
	Fired   uint64 `json:"fired"`
}

// Attempt is one SMTP attempt at an inbox with fault rules, as its
// attempt log shows it.
type Attempt struct {
	At        Time    `json:"at"`
	Client    *string `json:"client"`
	From      string  `json:"from"`
	Command   string  `json:"command"`
	Code      int     `json:"code"`
	Reply     string  `json:"reply,omitempty"`
	RuleID    *string `json:"rule_id"`
	MessageID *string `json:"message_id"`
}
