package mailboxapi

import (
	"tempmail/mailbox"
	"tempmail/wire"
)

// Family B's shapes (docs/mailbox-api.md): mailboxes by username and
// messages by file name.

// TempEmail is the answer to POST /api/create-temp-email/.
type TempEmail struct {
	Success   bool      `json:"success"`
	Email     string    `json:"email"`
	InboxID   string    `json:"inbox_id"`
	CreatedAt wire.Time `json:"created_at"`
	Token     string    `json:"token"`
}

// Attachment is one of a message's attachments.
type Attachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
}

// Message is a message, whole, as GET /api/mailstore/mailbox/{username}/
// lists it and GET .../{filename} answers it.
type Message struct {
	Filename    string            `json:"filename"`
	From        string            `json:"from"`
	FromName    string            `json:"from_name"`
	To          string            `json:"to"`
	Subject     string            `json:"subject"`
	Date        wire.Time         `json:"date"`
	Size        int64             `json:"size"`
	Headers     map[string]string `json:"headers"`
	Body        string            `json:"body" answer:"long"`
	BodyHTML    string            `json:"body_html" answer:"long"`
	IsRead      bool              `json:"is_read"`
	Attachments []Attachment      `json:"attachments"`
	// Authentication is null for a message that was not checked.
	Authentication *mailbox.Auth `json:"authentication"`
}

func (m Message) LongTextLen() int { return len(m.Body) + len(m.BodyHTML) }

func toMessage(m *mailbox.Message) Message {
	out := Message{Filename: m.ID + ".eml", From: m.From, FromName: m.FromName, To: m.Address,
		Subject: m.Subject, Date: wire.At(m.ReceivedAt), Size: m.Size, Headers: m.Headers, Body: m.Text,
		BodyHTML: m.HTML, IsRead: m.IsRead, Attachments: []Attachment{}, Authentication: wire.AuthOf(m.Auth)}
	if out.Headers == nil {
		out.Headers = map[string]string{}
	}
	for _, a := range m.Attachments {
		out.Attachments = append(out.Attachments, Attachment{a.Filename, a.ContentType, a.Size})
	}
	return out
}
