package wire

// FaultRule is an SMTP fault rule, an inbox's or the service's, as the
// API shows it (docs/failing-on-purpose.md).
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
	To        string  `json:"to,omitempty"`
	Client    string  `json:"client,omitempty"`
	Greylist  string  `json:"greylist,omitempty"`
	Rate      int     `json:"rate,omitempty"`
	Priority  int     `json:"priority,omitempty"`
	CreatedAt Time    `json:"created_at"`
	ExpiresAt Time    `json:"expires_at"`
	// Matched counts the attempts it matched; Fired those it acted on.
	Matched uint64 `json:"matched"`
	Fired   uint64 `json:"fired"`
}

// Attempt is one SMTP attempt an attempt log shows: an inbox's (since it
// first had a rule), or the service's (those its rules acted on).
type Attempt struct {
	At        Time    `json:"at"`
	Client    *string `json:"client"`
	From      string  `json:"from"`
	To        string  `json:"to,omitempty"`
	Command   string  `json:"command"`
	Code      int     `json:"code"`
	Reply     string  `json:"reply,omitempty"`
	RuleID    *string `json:"rule_id"`
	MessageID *string `json:"message_id"`
}
