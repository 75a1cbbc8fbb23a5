package mail

import (
	"time"

	"tempmail/wire"
)

// Message is what a received message says: the raw message (when small
// enough to travel inline) and its parsed, bounded summary (Parse), so
// that nothing downstream of ingest parses.
type Message struct {
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
	Preview      string            `json:"preview,omitempty"` // what lists show (Preview)
	Headers      map[string]string `json:"headers,omitempty"`
	Attachments  []Attachment      `json:"attachments,omitempty"`
	// Auth is what SPF, DKIM and DMARC said on receipt; nil when they
	// were not checked (--auth-checks off, or stored before they were).
	Auth *Auth `json:"auth,omitempty"`
	// Links are the message's http and https links (Extract). Not
	// omitempty: content stored before links were extracted has none at
	// all (nil), which readers tell from a message without links ([]).
	Links []Link `json:"links"`
}

// Attachment describes one attachment of a received message. Its bytes stay
// in the raw message; Part locates them there (PartContent).
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
// makes it); SPF, DKIM and DMARC are its parts. Their JSON is the
// "authentication" object every API family shows, defined once, with the
// other shapes the Go client reads, in package wire.
type (
	Auth  = wire.Auth
	SPF   = wire.SPF
	DKIM  = wire.DKIM
	DMARC = wire.DMARC
)
