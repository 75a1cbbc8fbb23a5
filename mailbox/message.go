package mailbox

import (
	"time"

	"tempmail/events"
	"tempmail/mail"
)

// Message is one message, read whole: its place and state in its inbox,
// and what it says.
type Message struct {
	ID         string
	InboxID    string
	Address    string // its inbox's
	IsRead     bool
	ReadSeq    uint64 // the MarkedRead that marked it
	ReceivedAt time.Time
	Size       int64
	// ContentSeq is the sequence of its MailReceived, which holds its
	// sealed content, and Key the reference of that content's key;
	// RawObject names the sealed raw message in the object store when it
	// is large.
	ContentSeq uint64
	Key        uint64
	RawObject  string
	mail.Message
}

// ContentRef locates a message's sealed content.
func (m *Message) ContentRef() events.ContentRef {
	return events.ContentRef{MessageID: m.ID, Seq: m.ContentSeq, Key: m.Key}
}

// Head is what a list shows of what a message says: read from its
// content as the list is, never stored with the list.
type Head struct {
	From        string
	FromName    string
	Subject     string
	Preview     string
	To          []string
	Cc          []string
	Attachments []mail.Attachment
}
