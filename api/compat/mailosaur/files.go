package mailosaur

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
	"tempmail/mailbox"
)

// Mailosaur's files (mailosaur.go): files.getEmail, a message exactly as
// received, and files.getAttachment, an attachment's decoded bytes, found
// by its id alone. The SDK resolves these two with the body whatever the
// status, so an answer here must be the file or nothing a test could take
// for one: a refusal is still the family's JSON error, which the SDK hands
// back as a Buffer, and a test comparing it with what it sent fails.

// mailosaurRawEmail answers GET api/files/email/{id}.
func (s *API) mailosaurRawEmail(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var m *mailbox.Message
	if err == nil {
		m, err = s.mailosaurLookup(r)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	s.ServeRaw(w, r, m, false)
}

// mailosaurAttachmentFile answers GET api/files/attachments/{id}.
func (s *API) mailosaurAttachmentFile(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var m *mailbox.Message
	var att *mailbox.Attachment
	if err == nil {
		m, att, err = s.AttachmentByID(r.Context(), chi.URLParam(r, "id"))
		err = family.AsNotFound(err, "attachment not found")
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	s.ServeAttachment(w, r, m, att)
}
