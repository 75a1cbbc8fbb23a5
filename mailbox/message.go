package mailbox

import (
	"time"
)

// Message is one message, read whole: its place and state in its inbox,
// and what it says. Its Links are as every family shows them: each URL
// with its invisible characters percent-encoded, and found in its bodies
// when its content was stored before links were kept; never nil.
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
	Content
}

// ContentRef says where a message's content is in the log: in the
// MailReceived at Seq, sealed under the key Key names.
type ContentRef struct {
	MessageID string
	Seq       uint64
	Key       uint64
}

// ContentRef locates the message's sealed content.
func (m *Message) ContentRef() ContentRef {
	return ContentRef{MessageID: m.ID, Seq: m.ContentSeq, Key: m.Key}
}

// Summary is the message as a list shows it.
func (m *Message) Summary() Summary {
	return Summary{ID: m.ID, Address: m.Address, ReceivedAt: m.ReceivedAt, Size: m.Size, IsRead: m.IsRead,
		Head: Head{From: m.From, FromName: m.FromName, Subject: m.Subject, Preview: m.Preview, To: m.To, Cc: m.Cc,
			Attachments: m.Attachments}}
}

// Summary is a message as a list shows it: its place and state in its
// inbox, and its Head.
type Summary struct {
	ID         string
	Address    string // its inbox's
	ReceivedAt time.Time
	Size       int64
	IsRead     bool
	Head
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
	Attachments []Attachment
}
