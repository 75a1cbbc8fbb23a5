package wire

// Auth is what the checks of one message concluded (package mailauth
// makes it, package mail names it). Its JSON is the "authentication"
// object of every API family's message detail and of message.received
// webhooks; the stored record has a shape of its own (package events).
type Auth struct {
	SPF   SPF    `json:"spf"`
	DKIM  []DKIM `json:"dkim"` // one per signature checked, in header order; [] when unsigned
	DMARC DMARC  `json:"dmarc"`
}

// SPF is the check of the client's address against the SPF record of the
// MAIL FROM domain (or of the HELO name, for a null sender).
type SPF struct {
	Result string `json:"result"`
	Domain string `json:"domain"` // the domain checked; empty when none could be
	// HELO says Domain is the HELO name (MAIL FROM was empty), which the
	// Authentication-Results header written on receipt says as smtp.helo.
	// It is neither shown nor stored.
	HELO bool `json:"-"`
}

// DKIM is the check of one DKIM-Signature.
type DKIM struct {
	Result   string `json:"result"`
	Domain   string `json:"domain"`   // the signing domain, d=
	Selector string `json:"selector"` // s=
	// Reason says why a signature is not pass when the verifier decided
	// it (a key refused, l=, the checks' time spent); empty otherwise. A
	// fixed phrase, never words of the sender's.
	Reason string `json:"reason"`
}

// DMARC is the check of the From domain's DMARC policy against the
// aligned SPF and DKIM results.
type DMARC struct {
	Result string `json:"result"`
	Domain string `json:"domain"` // the From header's domain; empty when it has none
	// Policy is the policy the domain's record asks for a failing message
	// (none, quarantine or reject; sp= for a subdomain when the record is
	// the organisational domain's); empty when there is no record.
	Policy string `json:"policy"`
}
