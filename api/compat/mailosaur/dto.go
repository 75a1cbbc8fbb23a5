package mailosaur

import (
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mail"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

// The Mailosaur family's shapes (mailosaur.go): messages as the
// SDK's models read them (MessageSummary, Message, MessageContent, Link,
// Code, Attachment, Metadata). A message is always an email; spam
// analysis and the rest of Mailosaur's analyses are absent.

type mailosaurAddress struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// mailosaurHead is what a message's summary and the message itself
// begin with.
type mailosaurHead struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Server   string             `json:"server"`
	From     []mailosaurAddress `json:"from"`
	To       []mailosaurAddress `json:"to"`
	Cc       []mailosaurAddress `json:"cc"`
	Bcc      []mailosaurAddress `json:"bcc"`
	Received wire.Time          `json:"received"`
	Subject  string             `json:"subject"`
}

type mailosaurSummary struct {
	mailosaurHead
	Summary     string `json:"summary"`
	Attachments int    `json:"attachments"`
}

type mailosaurSummaries struct {
	Items []mailosaurSummary `json:"items"`
}

type mailosaurLink struct {
	Href string `json:"href"`
	Text string `json:"text"`
}

type mailosaurCode struct {
	Value string `json:"value"`
}

// mailosaurContent is a message's HTML or text body with the links and
// codes found in it.
type mailosaurContent struct {
	Body  string          `json:"body"`
	Links []mailosaurLink `json:"links"`
	Codes []mailosaurCode `json:"codes"`
}

type mailosaurAttachment struct {
	ID          string `json:"id"`
	ContentType string `json:"contentType"`
	FileName    string `json:"fileName"`
	Length      int64  `json:"length"`
}

type mailosaurHeader struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

type mailosaurMetadata struct {
	Headers  []mailosaurHeader  `json:"headers"`
	MailFrom string             `json:"mailFrom"`
	RcptTo   []mailosaurAddress `json:"rcptTo"`
}

type mailosaurMessage struct {
	mailosaurHead
	HTML        mailosaurHTML         `json:"html"`
	Text        mailosaurContent      `json:"text"`
	Attachments []mailosaurAttachment `json:"attachments"`
	Metadata    mailosaurMetadata     `json:"metadata"`
}

// mailosaurAddresses are addresses without names, as lists and the
// parsed message keep recipients.
func mailosaurAddresses(list []string) []mailosaurAddress {
	out := []mailosaurAddress{}
	for _, a := range list {
		out = append(out, mailosaurAddress{Email: a})
	}
	return out
}

// serverOf is the server id of an inbox's address: its domain's first
// label when the domain is <id>.<first domain>, else "".
func (s *API) serverOf(address string) string {
	_, domain := tempmail.SplitAddress(address)
	if id, ok := strings.CutSuffix(domain, s.mailosaurDomainSuffix()); ok && validServerID(id) {
		return id
	}
	return ""
}

func (s *API) mailosaurSummaryOut(sum *projections.Summary, address string) mailosaurSummary {
	head := mailosaurHead{ID: sum.ID, Type: "Email", Server: s.serverOf(address),
		From: []mailosaurAddress{{Name: sum.FromName, Email: sum.From}}, To: mailosaurAddresses(sum.To),
		Cc: mailosaurAddresses(sum.Cc), Bcc: []mailosaurAddress{}, Received: wire.At(sum.ReceivedAt), Subject: sum.Subject}
	return mailosaurSummary{mailosaurHead: head, Summary: sum.Preview, Attachments: len(sum.Attachments)}
}

func (s *API) mailosaurMessageOut(m *mailbox.Message) mailosaurMessage {
	head := mailosaurHead{ID: m.ID, Type: "Email", Server: s.serverOf(m.Address),
		From: []mailosaurAddress{{Name: m.FromName, Email: m.From}}, To: mailosaurAddresses(m.To),
		Cc: mailosaurAddresses(m.Cc), Bcc: []mailosaurAddress{}, Received: wire.At(m.ReceivedAt), Subject: m.Subject}
	out := mailosaurMessage{mailosaurHead: head,
		HTML: mailosaurHTML{mailosaurContent{Body: m.HTML, Links: mailosaurLinks("", m.HTML), Codes: mailosaurCodes(htmlWords(m.HTML))},
			mailosaurImages(m.HTML)},
		Text:        mailosaurContent{Body: m.Text, Links: mailosaurLinks(m.Text, ""), Codes: mailosaurCodes(m.Text)},
		Attachments: []mailosaurAttachment{},
		Metadata: mailosaurMetadata{Headers: []mailosaurHeader{}, MailFrom: m.MailFrom,
			RcptTo: []mailosaurAddress{{Email: m.Address}}},
	}
	for _, a := range m.Attachments {
		out.Attachments = append(out.Attachments, mailosaurAttachment{ID: a.ID, ContentType: a.ContentType, FileName: a.Filename, Length: a.Size})
	}
	for field, value := range m.Headers {
		out.Metadata.Headers = append(out.Metadata.Headers, mailosaurHeader{field, value})
	}
	slices.SortFunc(out.Metadata.Headers, func(a, b mailosaurHeader) int { return strings.Compare(a.Field, b.Field) })
	return out
}

// mailosaurLinks are the links of one body (mail.Extract, which bounds
// them), their URLs with invisible characters encoded, as every family
// shows them.
func mailosaurLinks(text, htm string) []mailosaurLink {
	out := []mailosaurLink{}
	if text == "" && htm == "" {
		return out
	}
	for _, l := range mail.Extract(text, htm) {
		out = append(out, mailosaurLink{Href: mail.EncodeInvisible(l.URL), Text: l.Text})
	}
	return out
}

// mailosaurCodePattern is the codes of a body: what family C's otp finds
// by default (search.go), each one.
var mailosaurCodePattern = regexp.MustCompile(family.DefaultOTPPattern)

// mailosaurMaxCodes bounds the codes of one body.
const mailosaurMaxCodes = 10

// mailosaurCodes are the distinct codes of text, in order.
func mailosaurCodes(text string) []mailosaurCode {
	out := []mailosaurCode{}
	for _, c := range mailosaurCodePattern.FindAllString(text, -1) {
		if len(out) == mailosaurMaxCodes {
			break
		}
		if !slices.Contains(out, mailosaurCode{c}) {
			out = append(out, mailosaurCode{c})
		}
	}
	return out
}

// htmlWords is the text an HTML body shows, each run on its own line:
// where codes are looked for, so that the digits of a colour or an
// attribute are not taken for one.
func htmlWords(htm string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(htm))
	skip := 0 // inside <script> or <style>
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "script" || string(name) == "style" {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); (string(name) == "script" || string(name) == "style") && skip > 0 {
				skip--
			}
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
				b.WriteByte('\n')
			}
		}
	}
}
