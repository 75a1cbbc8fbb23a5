package mailslurp

import (
	"strings"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

// The MailSlurp family's shapes (mailslurp.go), as the
// `mailslurp-client` SDK reads them: camelCase, times in ISO 8601, and
// null for what tempmail does not keep (an inbox's name, tags,
// description; a message's BCC is always empty).

type mailslurpError struct {
	Status  int    `json:"status"`
	Error   string `json:"error"`
	Message string `json:"message"`
}

// mailslurpInboxDto is an inbox (the SDK's InboxDto).
type mailslurpInboxDto struct {
	ID           string    `json:"id"`
	UserID       *string   `json:"userId"`
	CreatedAt    wire.Time `json:"createdAt"`
	Name         *string   `json:"name"`
	DomainID     *string   `json:"domainId"`
	Description  *string   `json:"description"`
	EmailAddress string    `json:"emailAddress"`
	ExpiresAt    wire.Time `json:"expiresAt"`
	Favourite    bool      `json:"favourite"`
	Tags         []string  `json:"tags"`
	InboxType    string    `json:"inboxType"`
	ReadOnly     bool      `json:"readOnly"`
	VirtualInbox bool      `json:"virtualInbox"`
	LocalPart    string    `json:"localPart"`
	Domain       string    `json:"domain"`
}

// userOf is the SDK's userId of what a tenant owns: the tenant's id; null
// for what no tenant owns (made with the API token).
func userOf(tenant string) *string {
	if tenant == "" {
		return nil
	}
	return &tenant
}

func toMailSlurpInbox(in *projections.Inbox) mailslurpInboxDto {
	local, domain := tempmail.SplitAddress(in.Address)
	return mailslurpInboxDto{ID: in.ID, UserID: userOf(in.TenantID), CreatedAt: wire.At(in.CreatedAt),
		EmailAddress: in.Address, ExpiresAt: wire.At(in.ExpiresAt), Tags: []string{}, InboxType: "HTTP_INBOX",
		LocalPart: local, Domain: domain}
}

// mailslurpSender is who sent a message, as the SDK's Sender has it.
type mailslurpSender struct {
	RawValue     string  `json:"rawValue"`
	EmailAddress string  `json:"emailAddress"`
	Name         *string `json:"name"`
}

func senderOf(address, name string) *mailslurpSender {
	if address == "" {
		return nil
	}
	s := &mailslurpSender{RawValue: address, EmailAddress: address}
	if name != "" {
		s.Name = &name
		s.RawValue = name + " <" + address + ">"
	}
	return s
}

// mailslurpEmail is a message whole (the SDK's Email). body is the HTML
// when the message has some (isHTML), its text otherwise.
type mailslurpEmail struct {
	ID          string            `json:"id"`
	UserID      *string           `json:"userId"`
	InboxID     string            `json:"inboxId"`
	DomainID    *string           `json:"domainId"`
	To          []string          `json:"to"`
	From        string            `json:"from"`
	Sender      *mailslurpSender  `json:"sender"`
	ReplyTo     *string           `json:"replyTo"`
	Cc          []string          `json:"cc"`
	Bcc         []string          `json:"bcc"`
	Headers     map[string]string `json:"headers"`
	Attachments []string          `json:"attachments"`
	Subject     string            `json:"subject"`
	Body        string            `json:"body" answer:"long"`
	BodyExcerpt string            `json:"bodyExcerpt"`
	TextExcerpt string            `json:"textExcerpt"`
	IsHTML      bool              `json:"isHTML"`
	HTML        bool              `json:"html"`
	Charset     string            `json:"charset"`
	CreatedAt   wire.Time         `json:"createdAt"`
	UpdatedAt   wire.Time         `json:"updatedAt"`
	Read        bool              `json:"read"`
	TeamAccess  bool              `json:"teamAccess"`
	MessageID   *string           `json:"messageId"`
	SizeBytes   int64             `json:"sizeBytes"`
}

func (m mailslurpEmail) LongTextLen() int { return len(m.Body) }

// bodyOf is a message's body as the family shows it, and whether it is HTML.
func bodyOf(m *mailbox.Message) (string, bool) {
	if m.HTML != "" {
		return m.HTML, true
	}
	return m.Text, false
}

// mailslurpTo is a message's To, or the inbox's address when its header
// names none (mail to an undisclosed list).
func mailslurpTo(to []string, address string) []string {
	if len(to) == 0 {
		return []string{address}
	}
	return to
}

func attachmentIDs(list []mailbox.Attachment) []string {
	out := make([]string, 0, len(list))
	for _, a := range list {
		out = append(out, a.ID)
	}
	return out
}

// mailslurpExcerpt is how long an excerpt of a body is.
const mailslurpExcerpt = 200

func toMailSlurpEmail(m *mailbox.Message, tenant string) mailslurpEmail {
	body, isHTML := bodyOf(m)
	out := mailslurpEmail{ID: m.ID, UserID: userOf(tenant), InboxID: m.InboxID, To: mailslurpTo(m.To, m.Address),
		From: m.From, Sender: senderOf(m.From, m.FromName), Cc: family.OrEmpty(m.Cc), Bcc: []string{}, Headers: m.Headers,
		Attachments: attachmentIDs(m.Attachments), Subject: m.Subject, Body: body,
		BodyExcerpt: tempmail.Excerpt(body, mailslurpExcerpt), TextExcerpt: tempmail.Excerpt(m.Text, mailslurpExcerpt),
		IsHTML: isHTML, HTML: isHTML, Charset: "UTF-8", CreatedAt: wire.At(m.ReceivedAt), UpdatedAt: wire.At(m.ReceivedAt),
		Read: m.IsRead, SizeBytes: m.Size}
	if out.Headers == nil {
		out.Headers = map[string]string{}
	}
	for name, v := range m.Headers {
		if strings.EqualFold(name, "Reply-To") {
			out.ReplyTo = &v
		}
	}
	if m.HeaderMessageID != "" {
		id := m.HeaderMessageID
		out.MessageID = &id
	}
	return out
}

// mailslurpPreview is a message in a list (the SDK's EmailPreview).
type mailslurpPreview struct {
	ID          string    `json:"id"`
	InboxID     string    `json:"inboxId"`
	DomainID    *string   `json:"domainId"`
	Subject     string    `json:"subject"`
	To          []string  `json:"to"`
	From        string    `json:"from"`
	Bcc         []string  `json:"bcc"`
	Cc          []string  `json:"cc"`
	CreatedAt   wire.Time `json:"createdAt"`
	Read        bool      `json:"read"`
	Attachments []string  `json:"attachments"`
	SizeBytes   int64     `json:"sizeBytes"`
}

// toMailSlurpPreview is m, of inbox in, as a list shows it: a summary of
// the views (Summary.Shown) or a message's own (Message.Summary).
func toMailSlurpPreview(in *projections.Inbox, m mailbox.Summary) mailslurpPreview {
	return mailslurpPreview{ID: m.ID, InboxID: in.ID, Subject: m.Subject, To: mailslurpTo(m.To, in.Address), From: m.From,
		Bcc: []string{}, Cc: family.OrEmpty(m.Cc), CreatedAt: wire.At(m.ReceivedAt), Read: m.IsRead,
		Attachments: attachmentIDs(m.Attachments), SizeBytes: m.Size}
}

// mailslurpAttachment is what an attachment is (AttachmentMetaData).
type mailslurpAttachment struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	ContentType   string `json:"contentType"`
	ContentLength int64  `json:"contentLength"`
}

// mailslurpCodes is what POST /emails/{id}/codes found (ExtractCodesResult).
type mailslurpCodes struct {
	Found      bool                 `json:"found"`
	Code       *string              `json:"code"`
	MethodUsed string               `json:"methodUsed"`
	Candidates []mailslurpCandidate `json:"candidates"`
	Warnings   []string             `json:"warnings"`
}

type mailslurpCandidate struct {
	Code       string  `json:"code"`
	Confidence float64 `json:"confidence"`
	Method     string  `json:"method"`
	Source     string  `json:"source"`
}

// mailslurpMatch is what POST /emails/{id}/contentMatch found
// (EmailContentMatchResult): the whole match, then its groups.
type mailslurpMatch struct {
	Pattern string   `json:"pattern"`
	Matches []string `json:"matches"`
}

// mailslurpLines is a message's text by lines (EmailTextLinesResult).
type mailslurpLines struct {
	Lines []string `json:"lines"`
	Body  string   `json:"body" answer:"long"`
}

func (l mailslurpLines) LongTextLen() int { return len(l.Body) }

// mailslurpLinks is a message's links (EmailLinksResult).
type mailslurpLinks struct {
	Links []string `json:"links"`
	Body  string   `json:"body" answer:"long"`
}

func (l mailslurpLinks) LongTextLen() int { return len(l.Body) }

// mailslurpHTML is an email's HTML with its subject (EmailHtmlDto).
type mailslurpHTML struct {
	Subject string `json:"subject"`
	Body    string `json:"body" answer:"long"`
}

func (h mailslurpHTML) LongTextLen() int { return len(h.Body) }

// mailslurpRaw is an email's source in JSON (RawEmailJson).
type mailslurpRaw struct {
	Content string `json:"content" answer:"long"`
}

func (r mailslurpRaw) LongTextLen() int { return len(r.Content) }

// mailslurpDownload is an attachment in base64 (DownloadAttachmentDto).
// attachmentBase64 writes it as it encodes the bytes, field by field in
// this order; the type is the document's word for it.
type mailslurpDownload struct {
	Base64FileContents string `json:"base64FileContents"`
	ContentType        string `json:"contentType"`
	SizeBytes          int64  `json:"sizeBytes"`
}

// mailslurpAttachmentEntity is an attachment found by its id alone
// (AttachmentEntityDto): what it is, and whose.
type mailslurpAttachmentEntity struct {
	ID            string    `json:"id"`
	AttachmentID  string    `json:"attachmentId"`
	UserID        *string   `json:"userId"`
	ContentType   string    `json:"contentType"`
	ContentLength int64     `json:"contentLength"`
	Name          string    `json:"name"`
	InboxID       string    `json:"inboxId"`
	CreatedAt     wire.Time `json:"createdAt"`
	UpdatedAt     wire.Time `json:"updatedAt"`
}

// mailslurpCount is how many emails an inbox holds (CountDto).
type mailslurpCount struct {
	TotalElements int `json:"totalElements"`
}

// mailslurpInboxByAddress says whether an address is an inbox the key
// may see, and which (InboxByEmailAddressResult).
type mailslurpInboxByAddress struct {
	InboxID *string `json:"inboxId"`
	Exists  bool    `json:"exists"`
}

// mailslurpInboxPreview is an inbox in a page (the SDK's InboxPreview):
// what tempmail does not keep is null or empty, as in mailslurpInboxDto.
type mailslurpInboxPreview struct {
	ID           string    `json:"id"`
	DomainID     *string   `json:"domainId"`
	EmailAddress string    `json:"emailAddress"`
	CreatedAt    wire.Time `json:"createdAt"`
	Favourite    bool      `json:"favourite"`
	Name         *string   `json:"name"`
	Tags         []string  `json:"tags"`
	TeamAccess   bool      `json:"teamAccess"`
	InboxType    string    `json:"inboxType"`
	VirtualInbox bool      `json:"virtualInbox"`
	ExpiresAt    wire.Time `json:"expiresAt"`
	UserID       *string   `json:"userId"`
	Description  *string   `json:"description"`
}

func toMailSlurpInboxPreview(in *projections.Inbox) mailslurpInboxPreview {
	return mailslurpInboxPreview{ID: in.ID, EmailAddress: in.Address, CreatedAt: wire.At(in.CreatedAt), Tags: []string{},
		InboxType: "HTTP_INBOX", ExpiresAt: wire.At(in.ExpiresAt), UserID: userOf(in.TenantID)}
}
