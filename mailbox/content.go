package mailbox

import "time"

// Content is what a received message says: the raw message (when small
// enough to travel inline) and its parsed, bounded summary (package mail
// parses it), so that nothing downstream of ingest parses.
type Content struct {
	Raw             []byte    `json:"raw,omitempty"`
	MailFrom        string    `json:"mail_from,omitempty"` // SMTP envelope sender
	From            string    `json:"from"`
	FromName        string    `json:"from_name,omitempty"`
	To              []string  `json:"to,omitempty"`
	Cc              []string  `json:"cc,omitempty"`
	Subject         string    `json:"subject,omitempty"`
	Date            time.Time `json:"date,omitzero"`
	HeaderMessageID string    `json:"header_message_id,omitempty"`
	Text            string    `json:"text,omitempty"`
	HTML            string    `json:"html,omitempty"`
	// TextFromHTML says the message has no text part: Text is its HTML
	// as text, for those who read text, and the preview is made from the
	// HTML itself.
	TextFromHTML bool              `json:"text_from_html,omitempty"`
	Preview      string            `json:"preview,omitempty"` // what lists show (mail.Preview)
	Headers      map[string]string `json:"headers,omitempty"`
	Attachments  []Attachment      `json:"attachments,omitempty"`
	// Auth is what SPF, DKIM and DMARC said on receipt; nil when they
	// were not checked (--auth-checks off, or stored before they were).
	Auth *Auth `json:"auth,omitempty"`
	// Links are the message's http and https links (mail.Extract). Not
	// omitempty: content stored before links were extracted has none at
	// all (nil), which readers tell from a message without links ([]).
	Links []Link `json:"links"`
}

// Attachment describes one attachment of a received message. Its bytes stay
// in the raw message; Part locates them there (mail.PartContent).
type Attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	Part        string `json:"part"` // MIME part path, e.g. "1.2"
}

// Link is one link of a message: its URL and the text it was written on
// (empty for a URL found in the text part).
type Link struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// Auth is what the checks of one message concluded (package mailauth
// makes it). Its JSON is the "authentication" object of every API
// family's message detail and of message.received webhooks (wire.AuthOf);
// the stored record has a shape of its own (package events).
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
