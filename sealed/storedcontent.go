package sealed

import (
	"tempmail/mailbox"
	"time"
)

// A message's content is stored in this package's own shapes, not in
// mailbox.Content's JSON: the model's JSON is the API's too (mailbox.Auth is
// every family's "authentication" object), and a field renamed there must
// not rename what earlier builds wrote. The names below are the ones
// stored since content version 4 (contentV); changing one is a new
// version, read beside the old.

// storedContent is the head of a content record (contentRecord) less its
// own fields: a mailbox.Content without its bodies. Raw, Text and HTML follow
// the head as they are (encodeContent), and have never been in its JSON.
type storedContent struct {
	MailFrom        string             `json:"mail_from,omitempty"`
	From            string             `json:"from"`
	FromName        string             `json:"from_name,omitempty"`
	To              []string           `json:"to,omitempty"`
	Cc              []string           `json:"cc,omitempty"`
	Subject         string             `json:"subject,omitempty"`
	Date            time.Time          `json:"date,omitzero"`
	HeaderMessageID string             `json:"header_message_id,omitempty"`
	TextFromHTML    bool               `json:"text_from_html,omitempty"`
	Preview         string             `json:"preview,omitempty"`
	Headers         map[string]string  `json:"headers,omitempty"`
	Attachments     []storedAttachment `json:"attachments,omitempty"`
	Auth            *storedAuth        `json:"auth,omitempty"`
	// Links is null in records written before links were kept, which
	// readers tell from a message without links ([]): not omitempty.
	Links []storedLink `json:"links"`
}

type storedAttachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	Part        string `json:"part"`
}

type storedLink struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// storedAuth is mailbox.Auth as stored. SPF's HELO is not: it serves only
// the Authentication-Results field written on receipt.
type storedAuth struct {
	SPF   storedSPF    `json:"spf"`
	DKIM  []storedDKIM `json:"dkim"`
	DMARC storedDMARC  `json:"dmarc"`
}

type storedSPF struct {
	Result string `json:"result"`
	Domain string `json:"domain"`
}

type storedDKIM struct {
	Result   string `json:"result"`
	Domain   string `json:"domain"`
	Selector string `json:"selector"`
	Reason   string `json:"reason"`
}

type storedDMARC struct {
	Result string `json:"result"`
	Domain string `json:"domain"`
	Policy string `json:"policy"`
}

// storedOf is m as stored, less its bodies. Lists keep being nil or not,
// as the JSON tells them apart.
func storedOf(m *mailbox.Content) storedContent {
	s := storedContent{MailFrom: m.MailFrom, From: m.From, FromName: m.FromName, To: m.To, Cc: m.Cc,
		Subject: m.Subject, Date: m.Date, HeaderMessageID: m.HeaderMessageID, TextFromHTML: m.TextFromHTML,
		Preview: m.Preview, Headers: m.Headers}
	if m.Attachments != nil {
		s.Attachments = make([]storedAttachment, len(m.Attachments))
		for i, a := range m.Attachments {
			s.Attachments[i] = storedAttachment(a)
		}
	}
	if m.Auth != nil {
		a := &storedAuth{SPF: storedSPF{Result: m.Auth.SPF.Result, Domain: m.Auth.SPF.Domain}, DMARC: storedDMARC(m.Auth.DMARC)}
		if m.Auth.DKIM != nil {
			a.DKIM = make([]storedDKIM, len(m.Auth.DKIM))
			for i, d := range m.Auth.DKIM {
				a.DKIM[i] = storedDKIM(d)
			}
		}
		s.Auth = a
	}
	if m.Links != nil {
		s.Links = make([]storedLink, len(m.Links))
		for i, l := range m.Links {
			s.Links[i] = storedLink(l)
		}
	}
	return s
}

// message is what s says, as a mailbox.Content without its bodies.
func (s *storedContent) message() mailbox.Content {
	m := mailbox.Content{MailFrom: s.MailFrom, From: s.From, FromName: s.FromName, To: s.To, Cc: s.Cc,
		Subject: s.Subject, Date: s.Date, HeaderMessageID: s.HeaderMessageID, TextFromHTML: s.TextFromHTML,
		Preview: s.Preview, Headers: s.Headers}
	if s.Attachments != nil {
		m.Attachments = make([]mailbox.Attachment, len(s.Attachments))
		for i, a := range s.Attachments {
			m.Attachments[i] = mailbox.Attachment(a)
		}
	}
	if s.Auth != nil {
		a := &mailbox.Auth{SPF: mailbox.SPF{Result: s.Auth.SPF.Result, Domain: s.Auth.SPF.Domain}, DMARC: mailbox.DMARC(s.Auth.DMARC)}
		if s.Auth.DKIM != nil {
			a.DKIM = make([]mailbox.DKIM, len(s.Auth.DKIM))
			for i, d := range s.Auth.DKIM {
				a.DKIM[i] = mailbox.DKIM(d)
			}
		}
		m.Auth = a
	}
	if s.Links != nil {
		m.Links = make([]mailbox.Link, len(s.Links))
		for i, l := range s.Links {
			m.Links[i] = mailbox.Link(l)
		}
	}
	return m
}
