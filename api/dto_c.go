package api

import (
	"strconv"

	"tempmail/mail"
	"tempmail/projections"
	"tempmail/wire"
)

// Family C's shapes (API.md "Family C"): inboxes by token, their
// messages, codes and links.

type tokenInbox struct {
	Token     string    `json:"token"`
	Address   string    `json:"address"`
	CreatedAt wire.Time `json:"created_at"`
	ExpiresAt wire.Time `json:"expires_at"`
}

type attachmentC struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	URL         string `json:"url,omitempty"` // in a message's detail: where it downloads
}

type messageSummaryC struct {
	ID          string        `json:"id"`
	From        string        `json:"from"`
	FromName    string        `json:"from_name"`
	To          string        `json:"to"`
	Subject     string        `json:"subject"`
	ReceivedAt  wire.Time     `json:"received_at"`
	Size        int64         `json:"size"`
	IsRead      bool          `json:"is_read"`
	Attachments []attachmentC `json:"attachments"`
	Preview     string        `json:"preview"`
}

// summaryC is a message as family C lists it.
func summaryC(in *projections.Inbox, m *projections.Summary) messageSummaryC {
	return messageSummaryC{ID: m.ID, From: m.From, FromName: m.FromName,
		To: in.Address, Subject: m.Subject, ReceivedAt: wire.Time(m.ReceivedAt), Size: m.Size,
		IsRead: m.IsRead, Attachments: attachmentsC(m.Attachments), Preview: m.Preview}
}

func attachmentsC(list []mail.Attachment) []attachmentC {
	out := make([]attachmentC, 0, len(list))
	for _, a := range list {
		out = append(out, attachmentC{Filename: a.Filename, ContentType: a.ContentType, Size: a.Size})
	}
	return out
}

type messageC struct {
	ID          string            `json:"id"`
	From        string            `json:"from"`
	FromName    string            `json:"from_name"`
	To          string            `json:"to"`
	Cc          []string          `json:"cc"`
	Subject     string            `json:"subject"`
	Text        longText          `json:"text"`
	HTML        longText          `json:"html"`
	ReceivedAt  wire.Time         `json:"received_at"`
	Size        int64             `json:"size"`
	IsRead      bool              `json:"is_read"`
	Headers     map[string]string `json:"headers"`
	Attachments []attachmentC     `json:"attachments"`
	// Authentication is null for a message that was not checked.
	Authentication *mail.Auth    `json:"authentication"`
	Links          []messageLink `json:"links"`
}

func (m messageC) longTextLen() int { return len(m.Text) + len(m.HTML) }

// toMessageC is a message as family C shows it; token, when set, gives
// each attachment the url that downloads it with the inbox's token.
func toMessageC(m *projections.Message, token string) messageC {
	out := messageC{ID: m.ID, From: m.From, FromName: m.FromName, To: m.Address, Cc: orEmpty(m.Cc), Subject: m.Subject,
		Text: longText(m.Text), HTML: longText(m.HTML), ReceivedAt: wire.Time(m.ReceivedAt), Size: m.Size, IsRead: m.IsRead,
		Headers: m.Headers, Attachments: attachmentsC(m.Attachments), Authentication: authentication(m.Auth), Links: linksOf(m)}
	if out.Headers == nil {
		out.Headers = map[string]string{}
	}
	if token != "" {
		for i := range out.Attachments {
			out.Attachments[i].URL = "/inboxes/" + token + "/messages/" + m.ID + "/attachments/" + strconv.Itoa(i+1) + "/"
		}
	}
	return out
}

type otpC struct {
	OTP        string    `json:"otp"`
	MessageID  string    `json:"message_id"`
	Subject    string    `json:"subject"`
	From       string    `json:"from"`
	ReceivedAt wire.Time `json:"received_at"`
}

type tokenInboxDetail struct {
	tokenInbox
	Count int `json:"count"`
}

type linkC struct {
	Link       string    `json:"link"`
	LinkASCII  string    `json:"link_ascii"` // as messageLink's url_ascii
	Text       string    `json:"text"`
	MessageID  string    `json:"message_id"`
	Subject    string    `json:"subject"`
	From       string    `json:"from"`
	ReceivedAt wire.Time `json:"received_at"`
}
