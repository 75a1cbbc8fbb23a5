package wire

import (
	"strconv"

	"tempmail/mailbox"
)

// Family C's shapes (docs/token-api.md): inboxes by token, their messages,
// codes and links, as the service writes them and the Go client
// (package client) and the MCP tools read them. Fields tagged
// answer:"long" are a message's bodies, which the service writes piece by
// piece when they are long (api/family/answer.go); LongTextLen says how long
// they are together. The jsonschema tags describe a field to the MCP
// tools' clients, whose results show it too. A field family C shows is
// declared here and filled from the model here (SummaryOf, MessageOf,
// LinksOf, CodeOf, FoundLinkOf), nowhere else.

// Inbox is a family C inbox, as it is made.
type Inbox struct {
	Token     string `json:"token"`
	Address   string `json:"address"`
	CreatedAt Time   `json:"created_at"`
	ExpiresAt Time   `json:"expires_at"`
}

// InboxDetail is an inbox as GET /inboxes/{token}/ shows it: with how
// many messages it holds.
type InboxDetail struct {
	Inbox
	Count int `json:"count"`
}

// Attachment describes one attachment of a message.
type Attachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	URL         string `json:"url,omitempty"` // in a message's detail: where it downloads
}

// Summary is a message as lists show it.
type Summary struct {
	ID          string       `json:"id"`
	From        string       `json:"from"`
	FromName    string       `json:"from_name"`
	To          string       `json:"to"`
	Subject     string       `json:"subject"`
	ReceivedAt  Time         `json:"received_at"`
	Size        int64        `json:"size"`
	IsRead      bool         `json:"is_read"`
	Attachments []Attachment `json:"attachments"`
	Preview     string       `json:"preview"`
}

// Message is one message, whole.
type Message struct {
	ID          string            `json:"id"`
	From        string            `json:"from"`
	FromName    string            `json:"from_name"`
	To          string            `json:"to"`
	Cc          []string          `json:"cc"`
	Subject     string            `json:"subject"`
	Text        string            `json:"text" answer:"long"`
	HTML        string            `json:"html" answer:"long"`
	ReceivedAt  Time              `json:"received_at"`
	Size        int64             `json:"size"`
	IsRead      bool              `json:"is_read"`
	Headers     map[string]string `json:"headers"`
	Attachments []Attachment      `json:"attachments"`
	// Authentication is what the checks of the message concluded; null
	// for a message that was not checked.
	Authentication *Auth  `json:"authentication"`
	Links          []Link `json:"links"`
}

// SummaryOf is a message as family C lists it.
func SummaryOf(m *mailbox.Summary) Summary {
	return Summary{ID: m.ID, From: m.From, FromName: m.FromName, To: m.Address, Subject: m.Subject,
		ReceivedAt: At(m.ReceivedAt), Size: m.Size, IsRead: m.IsRead, Attachments: attachmentsOf(m.Attachments),
		Preview: m.Preview}
}

// MessageOf is a message as family C shows it; token, when set, gives
// each attachment the url that downloads it with the inbox's token.
func MessageOf(m *mailbox.Message, token string) Message {
	out := Message{ID: m.ID, From: m.From, FromName: m.FromName, To: m.Address, Cc: orEmpty(m.Cc),
		Subject: m.Subject, Text: m.Text, HTML: m.HTML, ReceivedAt: At(m.ReceivedAt), Size: m.Size,
		IsRead: m.IsRead, Headers: m.Headers, Attachments: attachmentsOf(m.Attachments),
		Authentication: AuthOf(m.Auth), Links: LinksOf(m.Links)}
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

func attachmentsOf(list []mailbox.Attachment) []Attachment {
	out := make([]Attachment, 0, len(list))
	for _, a := range list {
		out = append(out, Attachment{Filename: a.Filename, ContentType: a.ContentType, Size: a.Size})
	}
	return out
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// LongTextLen is how long the message's bodies are together.
func (m Message) LongTextLen() int { return len(m.Text) + len(m.HTML) }

// Link is one of a message's links.
type Link struct {
	URL string `json:"url"`
	// URLASCII is URL with its host as a browser looks it up (punycode
	// for an internationalized name); "" for a host no browser opens.
	URLASCII string `json:"url_ascii" jsonschema:"the URL with its host as a browser looks it up (punycode for an internationalized name): where the link leads"`
	Text     string `json:"text" jsonschema:"what the link says in the HTML; empty for a URL in the text"`
}

// LinksOf is a message's links as every family's details show them; never
// null.
func LinksOf(list []mailbox.Link) []Link {
	out := make([]Link, 0, len(list))
	for _, l := range list {
		out = append(out, Link{URL: l.URL, URLASCII: mailbox.ASCII(l.URL), Text: l.Text})
	}
	return out
}

// Code is a one-time code and the message it was found in.
type Code struct {
	Code       string `json:"otp"`
	MessageID  string `json:"message_id"`
	Subject    string `json:"subject"`
	From       string `json:"from"`
	ReceivedAt Time   `json:"received_at"`
}

// CodeOf is a one-time code found in m.
func CodeOf(code string, m *mailbox.Summary) Code {
	return Code{Code: code, MessageID: m.ID, Subject: m.Subject, From: m.From, ReceivedAt: At(m.ReceivedAt)}
}

// FoundLink is a link and the message it was found in.
type FoundLink struct {
	Link       string `json:"link"`
	LinkASCII  string `json:"link_ascii"` // as Link's URLASCII
	Text       string `json:"text"`
	MessageID  string `json:"message_id"`
	Subject    string `json:"subject"`
	From       string `json:"from"`
	ReceivedAt Time   `json:"received_at"`
}

// FoundLinkOf is a link found in m.
func FoundLinkOf(l mailbox.Link, m *mailbox.Summary) FoundLink {
	return FoundLink{Link: l.URL, LinkASCII: mailbox.ASCII(l.URL), Text: l.Text, MessageID: m.ID, Subject: m.Subject,
		From: m.From, ReceivedAt: At(m.ReceivedAt)}
}
