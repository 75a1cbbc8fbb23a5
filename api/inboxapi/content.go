package inboxapi

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
	"tempmail/mailbox"
)

func (s *API) rawEmailA(w http.ResponseWriter, r *http.Request) {
	if m, ok := s.lookupEmailA(w, r); ok {
		s.ServeRaw(w, r, m, false)
	}
}

// downloadAttachmentA serves an attachment's bytes. Its id is the message id
// and its position, so no index is needed to find it.
func (s *API) downloadAttachmentA(w http.ResponseWriter, r *http.Request) {
	id := strings.ToLower(chi.URLParam(r, "id"))
	msgID := ""
	if len(id) > 37 && id[36] == '-' {
		msgID = id[:36]
	}
	m, _, err := s.MessageByID(r.Context(), msgID)
	var att *mailbox.Attachment
	if err == nil {
		for i := range m.Attachments {
			if m.Attachments[i].ID == id {
				att = &m.Attachments[i]
			}
		}
		if att == nil {
			err = family.ErrNotFound
		}
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	s.ServeAttachment(w, r, m, att)
}
