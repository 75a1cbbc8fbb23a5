package family

import (
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"tempmail"
	"tempmail/mail"
	"tempmail/mailbox"
)

// ServeRaw answers with a message exactly as received; download makes the
// browser save it as <id>.eml rather than show it.
func (s *Kit) ServeRaw(w http.ResponseWriter, r *http.Request, m *mailbox.Message, download bool) {
	rc, err := s.OpenRaw(r.Context(), m)
	if err != nil {
		WriteError(w, r, s.Log, AsNotFound(err, NotFoundFor(r)))
		return
	}
	defer rc.Close()
	disposition := "inline"
	if download {
		disposition = "attachment"
	}
	w.Header().Set("Content-Type", "message/rfc822")
	w.Header().Set("Content-Length", strconv.FormatInt(m.Size, 10))
	w.Header().Set("Content-Disposition", disposition+`; filename="`+m.ID+`.eml"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	allowDownload(w, m.Size)
	if _, err := io.Copy(w, rc); err != nil {
		s.Log.Warn("raw download interrupted", "id", m.ID, "err", err)
	}
}

// ServeAttachment answers with the decoded bytes of one attachment.
// It holds room in s.downloads meanwhile (downloads.go).
func (s *Kit) ServeAttachment(w http.ResponseWriter, r *http.Request, m *mailbox.Message, att *mailbox.Attachment) {
	held, err := s.Downloads.take(r.Context(), m)
	if err != nil {
		WriteError(w, r, s.Log, err)
		return
	}
	defer func() { s.Downloads.sem.Release(held) }()
	raw, err := s.RawBytes(r.Context(), m)
	if err != nil {
		WriteError(w, r, s.Log, AsNotFound(err, NotFoundFor(r)))
		return
	}
	content, err := mail.PartContent(raw, att.Part)
	held = s.Downloads.keep(held, int64(len(content)))
	if err != nil {
		WriteError(w, r, s.Log, tempmail.Wrap(tempmail.Internal, err, "the attachment cannot be read"))
		return
	}
	w.Header().Set("Content-Type", att.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	w.Header().Set("Content-Disposition", attachmentDisposition(att.Filename))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
	allowDownload(w, int64(len(content)))
	_, _ = w.Write(content)
}

// allowDownload gives a download of size bytes the time it needs: the
// server's write timeout suits ordinary answers, and would cut off a large
// message sent to a slow client. It allows a minute, and one more second
// for every 32 KiB.
func allowDownload(w http.ResponseWriter, size int64) {
	d := time.Minute + time.Duration(size/(32<<10))*time.Second
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
}

// attachmentDisposition is `attachment; filename="name"`, or the RFC 2231
// form when the name is not plain ASCII.
func attachmentDisposition(name string) string {
	plain := name != ""
	for _, r := range name {
		plain = plain && r >= 0x20 && r < 0x7f && r != '"' && r != '\\'
	}
	if plain {
		return `attachment; filename="` + name + `"`
	}
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": name}); v != "" {
		return v
	}
	return "attachment"
}
