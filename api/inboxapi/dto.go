package inboxapi

import (
	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

// Family A's shapes (docs/inbox-api.md): the answers of the inbox API
// of the Django temp-mail service it follows. Its email summary is in
// package wire: outbound webhooks carry it too.

// InboxByAddress is an inbox as the operator's lookup by address answers
// it: its family A fields and the token the other families read it by.
type InboxByAddress struct {
	Inbox
	Token string `json:"token"`
}

// Inbox is an inbox as the family shows it.
type Inbox struct {
	ID          string    `json:"id"`
	Email       string    `json:"email"`
	ExpiresAt   wire.Time `json:"expires_at"`
	TTL         *int64    `json:"ttl"`
	CreatedAt   wire.Time `json:"created_at"`
	Domain      string    `json:"domain"`
	AccessToken string    `json:"access_token"`
	EmailCount  *int      `json:"email_count,omitempty"`
}

func toInboxA(in *projections.Inbox) Inbox {
	_, domain := tempmail.SplitAddress(in.Address)
	out := Inbox{ID: in.ID, Email: in.Address, ExpiresAt: wire.At(in.ExpiresAt), CreatedAt: wire.At(in.CreatedAt),
		Domain: domain, AccessToken: in.Token}
	if in.TTL > 0 {
		out.TTL = &in.TTL
	}
	return out
}

// Attachment is one of an email's attachments.
type Attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	FileSize    int64  `json:"file_size"`
}

// Email is an email, whole, as GET /api/emails/{id}/ answers it.
type Email struct {
	ID          string       `json:"id"`
	InboxID     string       `json:"inbox_id"`
	MessageID   string       `json:"message_id"`
	FromEmail   string       `json:"from_email"`
	FromName    string       `json:"from_name"`
	To          []string     `json:"to"`
	Cc          []string     `json:"cc"`
	Subject     string       `json:"subject"`
	BodyText    string       `json:"body_text" answer:"long"`
	BodyHTML    string       `json:"body_html" answer:"long"`
	ReceivedAt  wire.Time    `json:"received_at"`
	IsRead      bool         `json:"is_read"`
	Size        int64        `json:"size"`
	Attachments []Attachment `json:"attachments"`
	// Authentication is null for a message that was not checked.
	Authentication *mailbox.Auth        `json:"authentication"`
	Links          []family.MessageLink `json:"links"`
}

func (m Email) LongTextLen() int { return len(m.BodyText) + len(m.BodyHTML) }

func toEmailA(m *mailbox.Message) Email {
	out := Email{ID: m.ID, InboxID: m.InboxID, MessageID: m.HeaderMessageID, FromEmail: m.From,
		FromName: m.FromName, To: family.OrEmpty(m.To), Cc: family.OrEmpty(m.Cc), Subject: m.Subject, BodyText: m.Text,
		BodyHTML: m.HTML, ReceivedAt: wire.At(m.ReceivedAt), IsRead: m.IsRead, Size: m.Size,
		Attachments: []Attachment{}, Authentication: wire.AuthOf(m.Auth), Links: wire.LinksOf(m.Links)}
	for _, a := range m.Attachments {
		out.Attachments = append(out.Attachments, Attachment{a.ID, a.Filename, a.ContentType, a.Size})
	}
	return out
}

// summaryA is a list entry (joined with its content) as family A lists it,
// in the shape outbound message.received webhooks carry too.
func summaryA(in *projections.Inbox, s *projections.Summary) wire.EmailSummaryA {
	m := s.Shown(in.Address)
	return wire.SummaryAOf(&m)
}
