package tokenapi

import (
	"strconv"

	"tempmail/api/family"
	"tempmail/mail"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

// Family C's shapes (API.md "Family C"): inboxes by token, their
// messages, codes and links, declared once in package wire, which the Go
// client and the MCP tools read them with.
type (
	tokenInbox       = wire.Inbox
	tokenInboxDetail = wire.InboxDetail
	attachmentC      = wire.Attachment
	messageSummaryC  = wire.Summary
	messageC         = wire.Message
	otpC             = wire.Code
	linkC            = wire.FoundLink
)

// summaryC is a message as family C lists it.
func summaryC(in *projections.Inbox, m *projections.Summary) messageSummaryC {
	return messageSummaryC{ID: m.ID, From: m.From, FromName: m.FromName,
		To: in.Address, Subject: m.Subject, ReceivedAt: wire.At(m.ReceivedAt), Size: m.Size,
		IsRead: m.IsRead, Attachments: attachmentsC(m.Attachments), Preview: m.Preview}
}

func attachmentsC(list []mail.Attachment) []attachmentC {
	out := make([]attachmentC, 0, len(list))
	for _, a := range list {
		out = append(out, attachmentC{Filename: a.Filename, ContentType: a.ContentType, Size: a.Size})
	}
	return out
}

// toMessageC is a message as family C shows it; token, when set, gives
// each attachment the url that downloads it with the inbox's token.
func toMessageC(m *mailbox.Message, token string) messageC {
	out := messageC{ID: m.ID, From: m.From, FromName: m.FromName, To: m.Address, Cc: family.OrEmpty(m.Cc), Subject: m.Subject,
		Text: m.Text, HTML: m.HTML, ReceivedAt: wire.At(m.ReceivedAt), Size: m.Size, IsRead: m.IsRead,
		Headers: m.Headers, Attachments: attachmentsC(m.Attachments), Authentication: family.Authentication(m.Auth), Links: family.LinksOf(m)}
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
