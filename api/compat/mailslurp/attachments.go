package mailslurp

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

// The MailSlurp family's attachments (mailslurp.go): listed by their
// email, and each read, as bytes, in base64 or as what it is, found by
// its email and its id (emailController) or by its id alone
// (attachmentController). An attachment's id is its email's id, "-" and
// its number (family.Kit.AttachmentByID), so either way finds it without an
// index. The bytes are the decoded part as sent: ServeAttachment reads
// them within the room downloads share.
//
// The SDK reads the bytes of downloadAttachment and
// downloadAttachmentAsBytes as text (its TextApiResponse: UTF-8, which
// turns bytes that are no UTF-8 into U+FFFD). The answer is the exact
// bytes all the same; a caller gets them unchanged from the same call's
// Raw form (downloadAttachmentRaw(...).raw.arrayBuffer()), or in base64.

// maxAttachmentID is the longest attachment id: an email's id, "-", and
// its number (family.Kit.AttachmentByID).
const maxAttachmentID = 36 + 1 + 4

// errAttachmentID is the answer to a path's attachment id that cannot be
// one.
var errAttachmentID = tempmail.Errorf(tempmail.Invalid,
	"attachmentId must be an attachment's id as the email lists it: the email's id, -, and a number (at most %d characters)",
	maxAttachmentID)

// mailslurpAttachmentOf finds the attachment of the path's
// {attachmentId}, in the email of {emailId} when the path has one, and its
// email.
func (s *API) mailslurpAttachmentOf(r *http.Request) (*mailbox.Message, *mailbox.Attachment, error) {
	if err := mailslurpMay(r, false); err != nil {
		return nil, nil, err
	}
	id := chi.URLParam(r, "attachmentId")
	if id == "" || len(id) > maxAttachmentID || strings.Trim(id, "0123456789abcdefABCDEF-") != "" {
		return nil, nil, errAttachmentID
	}
	notFound := "Attachment not found: " + id
	if chi.URLParam(r, "emailId") == "" {
		m, att, err := s.AttachmentByID(r.Context(), id)
		return m, att, family.AsNotFound(err, notFound)
	}
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		return nil, nil, err
	}
	for i := range m.Attachments {
		if m.Attachments[i].ID == strings.ToLower(id) {
			return m, &m.Attachments[i], nil
		}
	}
	return nil, nil, tempmail.Errorf(tempmail.NotFound, "%s", notFound)
}

// mailslurpAttachments is what an email's attachments are: GET
// /emails/{emailId}/attachments.
func (s *API) mailslurpAttachments(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	out := make([]mailslurpAttachment, 0, len(m.Attachments))
	for i := range m.Attachments {
		out = append(out, toMailSlurpAttachment(&m.Attachments[i]))
	}
	family.WriteJSON(w, http.StatusOK, out)
}

func toMailSlurpAttachment(a *mailbox.Attachment) mailslurpAttachment {
	return mailslurpAttachment{ID: a.ID, Name: a.Filename, ContentType: a.ContentType, ContentLength: a.Size}
}

// mailslurpDownloadAttachment answers an attachment's bytes:
// downloadAttachment (GET /emails/{emailId}/attachments/{attachmentId})
// and downloadAttachmentAsBytes (GET /attachments/{attachmentId}/bytes).
func (s *API) mailslurpDownloadAttachment(w http.ResponseWriter, r *http.Request) {
	m, att, err := s.mailslurpAttachmentOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.ServeAttachment(w, r, m, att)
}

// mailslurpAttachmentMetadata is what an attachment is: getAttachmentMetaData
// (GET /emails/{emailId}/attachments/{attachmentId}/metadata) and
// getAttachmentInfo (GET /attachments/{attachmentId}/metadata).
func (s *API) mailslurpAttachmentMetadata(w http.ResponseWriter, r *http.Request) {
	_, att, err := s.mailslurpAttachmentOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, toMailSlurpAttachment(att))
}

// mailslurpAttachmentEntity is an attachment and whose it is: getAttachment
// (GET /attachments/{attachmentId}). It was made when its email came.
func (s *API) mailslurpAttachmentEntity(w http.ResponseWriter, r *http.Request) {
	m, att, err := s.mailslurpAttachmentOf(r)
	var in *projections.Inbox
	if err == nil {
		in, err = s.Views.Inbox(r.Context(), m.InboxID)
		err = family.AsNotFound(err, "Attachment not found: "+att.ID) // its inbox ended a moment ago
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, mailslurpAttachmentEntity{ID: att.ID, AttachmentID: att.ID, UserID: userOf(in.TenantID),
		ContentType: att.ContentType, ContentLength: att.Size, Name: att.Filename, InboxID: in.ID,
		CreatedAt: wire.At(m.ReceivedAt), UpdatedAt: wire.At(m.ReceivedAt)})
}

// mailslurpAttachmentBase64 answers an attachment in base64 in JSON:
// downloadAttachmentBase64 (GET .../attachments/{attachmentId}/base64 of
// an email) and downloadAttachmentAsBase64Encoded (GET
// /attachments/{attachmentId}/base64). ServeAttachment reads the bytes,
// and they are encoded as it writes them.
func (s *API) mailslurpAttachmentBase64(w http.ResponseWriter, r *http.Request) {
	m, att, err := s.mailslurpAttachmentOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	b := &base64Answer{w: w, header: http.Header{}}
	s.ServeAttachment(b, r, m, att)
	b.finish(att.ContentType)
}

// base64Answer is the writer ServeAttachment answers into for
// mailslurpAttachmentBase64: a 200 becomes DownloadAttachmentDto, its
// bytes encoded as they come, so that no more than ServeAttachment holds
// is held; any other answer (a refusal, in the family's shape) passes on
// as it is.
type base64Answer struct {
	w      http.ResponseWriter
	header http.Header // ServeAttachment's; sent on only with a refusal
	status int
	enc    io.WriteCloser // the bytes' encoder, once a 200 began
	n      int64
}

func (b *base64Answer) Header() http.Header { return b.header }

// Unwrap lets ServeAttachment's http.ResponseController reach the
// connection, to give a large download its time.
func (b *base64Answer) Unwrap() http.ResponseWriter { return b.w }

func (b *base64Answer) WriteHeader(status int) {
	if b.status != 0 {
		return
	}
	b.status = status
	if status != http.StatusOK {
		maps.Copy(b.w.Header(), b.header)
		b.w.WriteHeader(status)
		return
	}
	b.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	b.w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(b.w, `{"base64FileContents":"`)
	b.enc = base64.NewEncoder(base64.StdEncoding, b.w)
}

func (b *base64Answer) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.WriteHeader(http.StatusOK)
	}
	if b.enc == nil {
		return b.w.Write(p)
	}
	b.n += int64(len(p))
	return b.enc.Write(p)
}

// finish ends the JSON a 200 began: the encoding's last block, then the
// content type and the size.
func (b *base64Answer) finish(contentType string) {
	if b.enc == nil {
		return
	}
	_ = b.enc.Close()
	ct, _ := json.Marshal(contentType)
	_, _ = io.WriteString(b.w, `","contentType":`+string(ct)+`,"sizeBytes":`+strconv.FormatInt(b.n, 10)+"}\n")
}
