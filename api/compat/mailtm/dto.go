package mailtm

import (
	"fmt"
	"strconv"

	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

// The MailTM family's shapes (mailtm.go), with mail.tm's field
// names. In JSON-LD each object carries its IRI (@id) and type (@type),
// and a top-level one its @context; in plain JSON those are left out.

// ld is the JSON-LD members of an object; empty in plain JSON.
type ld struct {
	Context string `json:"@context,omitempty"`
	ID      string `json:"@id,omitempty"`
	Type    string `json:"@type,omitempty"`
}

// ldOf is the JSON-LD members of an object of type typ at path (under
// the family's prefix), top says it is the answer itself (with its
// @context); none when on is false.
func ldOf(on, top bool, typ, path string) ld {
	if !on {
		return ld{}
	}
	out := ld{ID: path, Type: typ}
	if top {
		out.Context = "/contexts/" + typ
	}
	return out
}

type mailtmAuthError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// mailtmError is an error of the original's two shapes: JSON-LD's
// hydra:Error (or ConstraintViolationList) and plain JSON's problem; detail
// is in both, which is what clients read.
type mailtmError struct {
	Context      string            `json:"@context,omitempty"`
	Type         string            `json:"@type,omitempty"`
	Title        string            `json:"hydra:title,omitempty"`
	Description  string            `json:"hydra:description,omitempty"`
	ProblemType  string            `json:"type,omitempty"`
	ProblemTitle string            `json:"title,omitempty"`
	Detail       string            `json:"detail"`
	Status       int               `json:"status"`
	Violations   []mailtmViolation `json:"violations,omitempty"`
}

type mailtmDomainOut struct {
	ld
	ID        string `json:"id"`
	Domain    string `json:"domain"`
	IsActive  bool   `json:"isActive"`
	IsPrivate bool   `json:"isPrivate"`
}

func toMailTMDomain(d projections.Domain, on, top bool) mailtmDomainOut {
	id := strconv.Itoa(d.ID)
	return mailtmDomainOut{ld: ldOf(on, top, "Domain", "/domains/"+id), ID: id, Domain: d.Name, IsActive: d.Active,
		IsPrivate: d.TenantID != ""}
}

type mailtmAccountOut struct {
	ld
	ID         string    `json:"id"`
	Address    string    `json:"address"`
	Quota      int64     `json:"quota"`
	Used       int64     `json:"used"`
	IsDisabled bool      `json:"isDisabled"`
	IsDeleted  bool      `json:"isDeleted"`
	CreatedAt  wire.Time `json:"createdAt"`
	UpdatedAt  wire.Time `json:"updatedAt"`
}

// toMailTMAccount is an account as mail.tm shows it; quota is what the
// inbox may hold at most (0: no bound).
func toMailTMAccount(in *projections.Inbox, quota int64, on bool) mailtmAccountOut {
	return mailtmAccountOut{ld: ldOf(on, true, "Account", "/accounts/"+in.ID), ID: in.ID, Address: in.Address,
		Quota: quota, Used: in.Held.Bytes, CreatedAt: wire.At(in.CreatedAt), UpdatedAt: wire.At(in.CreatedAt)}
}

type mailtmToken struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

type mailtmAddress struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

// mailtmSummaryOut is a message as GET /messages lists it.
type mailtmSummaryOut struct {
	ld
	ID             string          `json:"id"`
	AccountID      string          `json:"accountId"`
	MsgID          string          `json:"msgid"`
	From           mailtmAddress   `json:"from"`
	To             []mailtmAddress `json:"to"`
	Subject        string          `json:"subject"`
	Intro          string          `json:"intro"`
	Seen           bool            `json:"seen"`
	IsDeleted      bool            `json:"isDeleted"`
	HasAttachments bool            `json:"hasAttachments"`
	Size           int64           `json:"size"`
	DownloadURL    string          `json:"downloadUrl"`
	CreatedAt      wire.Time       `json:"createdAt"`
	UpdatedAt      wire.Time       `json:"updatedAt"`
}

// mailtmTo is the recipients of a message: its To header's, or else
// the inbox's address.
func mailtmTo(list []string, address string) []mailtmAddress {
	out := make([]mailtmAddress, 0, max(1, len(list)))
	for _, a := range list {
		out = append(out, mailtmAddress{Address: a})
	}
	if len(out) == 0 {
		out = append(out, mailtmAddress{Address: address})
	}
	return out
}

// toMailTMSummary is a message of a list; lists carry no Message-ID
// header (msgid is empty there; GET /messages/{id} has it).
func toMailTMSummary(in *projections.Inbox, m *projections.Summary, on bool) mailtmSummaryOut {
	return mailtmSummaryOut{ld: ldOf(on, false, "Message", "/messages/"+m.ID), ID: m.ID, AccountID: in.ID,
		From: mailtmAddress{Address: m.From, Name: m.FromName}, To: mailtmTo(m.To, in.Address), Subject: m.Subject,
		Intro: m.Preview, Seen: m.IsRead, HasAttachments: len(m.Attachments) > 0, Size: m.Size,
		DownloadURL: "/messages/" + m.ID + "/download",
		CreatedAt:   wire.At(m.ReceivedAt), UpdatedAt: wire.At(m.ReceivedAt)}
}

type mailtmAttachmentOut struct {
	ID               string `json:"id"`
	Filename         string `json:"filename"`
	ContentType      string `json:"contentType"`
	Disposition      string `json:"disposition"`
	TransferEncoding string `json:"transferEncoding"`
	Related          bool   `json:"related"`
	Size             int64  `json:"size"`
	DownloadURL      string `json:"downloadUrl"`
}

// mailtmAttachmentID is the id of a message's i-th attachment (from 1),
// in mail.tm's form.
func mailtmAttachmentID(i int) string { return fmt.Sprintf("ATTACH%06d", i) }

// mailtmMessageOut is a message whole, as GET /messages/{id} shows it.
type mailtmMessageOut struct {
	ld
	ID             string                `json:"id"`
	AccountID      string                `json:"accountId"`
	MsgID          string                `json:"msgid"`
	From           mailtmAddress         `json:"from"`
	To             []mailtmAddress       `json:"to"`
	Cc             []string              `json:"cc"`
	Bcc            []string              `json:"bcc"`
	Subject        string                `json:"subject"`
	Seen           bool                  `json:"seen"`
	Flagged        bool                  `json:"flagged"`
	IsDeleted      bool                  `json:"isDeleted"`
	Verifications  []string              `json:"verifications"`
	Retention      bool                  `json:"retention"`
	RetentionDate  *wire.Time            `json:"retentionDate"`
	Text           string                `json:"text" answer:"long"`
	HTML           []string              `json:"html"`
	HasAttachments bool                  `json:"hasAttachments"`
	Attachments    []mailtmAttachmentOut `json:"attachments"`
	Size           int64                 `json:"size"`
	DownloadURL    string                `json:"downloadUrl"`
	CreatedAt      wire.Time             `json:"createdAt"`
	UpdatedAt      wire.Time             `json:"updatedAt"`
}

func (m mailtmMessageOut) LongTextLen() int {
	n := len(m.Text)
	for _, h := range m.HTML {
		n += len(h)
	}
	return n
}

// toMailTMMessage is a message as mail.tm shows it whole; html is its
// HTML body as one part (none: []), retention the inbox's expiry.
func toMailTMMessage(in *projections.Inbox, m *mailbox.Message, on bool) mailtmMessageOut {
	out := mailtmMessageOut{ld: ldOf(on, true, "Message", "/messages/"+m.ID), ID: m.ID, AccountID: in.ID,
		MsgID: m.HeaderMessageID, From: mailtmAddress{Address: m.From, Name: m.FromName}, To: mailtmTo(m.To, in.Address),
		Cc: family.OrEmpty(m.Cc), Bcc: []string{}, Subject: m.Subject, Seen: m.IsRead, Verifications: []string{},
		Text: m.Text, HTML: []string{}, HasAttachments: len(m.Attachments) > 0,
		Attachments: make([]mailtmAttachmentOut, 0, len(m.Attachments)), Size: m.Size,
		DownloadURL: "/messages/" + m.ID + "/download",
		CreatedAt:   wire.At(m.ReceivedAt), UpdatedAt: wire.At(m.ReceivedAt)}
	if m.HTML != "" {
		out.HTML = []string{m.HTML}
	}
	if !in.ExpiresAt.IsZero() {
		at := wire.At(in.ExpiresAt)
		out.Retention, out.RetentionDate = true, &at
	}
	for i, a := range m.Attachments {
		id := mailtmAttachmentID(i + 1)
		out.Attachments = append(out.Attachments, mailtmAttachmentOut{ID: id, Filename: a.Filename,
			ContentType: a.ContentType, Disposition: "attachment", TransferEncoding: "base64", Size: a.Size,
			DownloadURL: "/messages/" + m.ID + "/attachment/" + id})
	}
	return out
}

type mailtmSourceOut struct {
	ld
	ID          string `json:"id"`
	DownloadURL string `json:"downloadUrl"`
	Data        string `json:"data" answer:"long"`
}

func (m mailtmSourceOut) LongTextLen() int { return len(m.Data) }
