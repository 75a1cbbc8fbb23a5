package mailslurp

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
)

// The MailSlurp family's emails (mailslurp.go): an inbox's emails,
// an email whole, deleted. An email answered whole is marked read, as
// MailSlurp does; what the SDK finds in one is in
// content.go, the waits in waits.go.

// answerEmail marks a found message read and answers it whole; a HEAD,
// which answers with GET's headers alone, changes nothing (RFC 9110 §9.3.2:
// safe).
func (s *API) answerEmail(w http.ResponseWriter, r *http.Request, in *projections.Inbox, m *mailbox.Message) {
	if !m.IsRead && r.Method != http.MethodHead {
		read, err := s.Commands.MarkRead(r.Context(), m)
		switch {
		case err == nil:
			m = read
		case tempmail.KindOf(err) != tempmail.NotFound: // deleted a moment ago: answered as it was
			family.WriteError(w, r, s.Log, err)
			return
		}
	}
	family.WriteJSON(w, http.StatusOK, toMailSlurpEmail(m, in.TenantID))
}

// mailslurpInboxEmails lists an inbox's emails (GET
// /inboxes/{inboxId}/emails), oldest first unless sort=DESC, at most
// limit or size (default 100, at most 200). With minCount, the request is
// held until the inbox holds that many, for at most retryTimeout.
func (s *API) mailslurpInboxEmails(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailslurpInboxOf(r, false)
	var q mailslurpWhich
	if err == nil {
		q, err = readWhich(r)
	}
	limit, minCount := 100, 0
	if err == nil {
		limit, err = mailslurpInt(r, "size", limit, 1, family.MaxLimit)
	}
	if err == nil {
		limit, err = mailslurpInt(r, "limit", limit, 1, family.MaxLimit)
	}
	if err == nil {
		minCount, err = mailslurpInt(r, "minCount", 0, 0, s.Config.MaxMessagesPerInbox)
	}
	var wait time.Duration
	if err == nil && minCount > 0 {
		wait, err = mailslurpTimeout(r, "retryTimeout", mailslurpMaxWait)
	}
	desc := false
	if err == nil {
		desc, err = mailslurpDesc(r)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	find := func(ctx context.Context) (any, bool, error) {
		in, err := family.LiveInbox(s.Views.Inbox(ctx, in.ID))
		if err != nil {
			return nil, false, family.AsNotFound(err, "Inbox not found")
		}
		var list []projections.Summary
		err = s.OldestFirst(ctx, in, func(m *projections.Summary) bool {
			if q.passes(m) {
				list = append(list, *m)
			}
			return false
		})
		if err != nil || len(list) < minCount {
			return nil, false, err
		}
		if desc {
			slices.Reverse(list)
		}
		return list[:min(limit, len(list))], true, nil
	}
	msg := fmt.Sprintf("Failed to satisfy email query for inbox %s (%s): expected at least %d emails after %d ms", in.ID,
		in.Address, minCount, wait.Milliseconds())
	s.mailslurpHeld(w, r, in.ID, wait, msg, find, func(v any) {
		list := v.([]projections.Summary)
		family.WritePage(w, len(list), func(i int) any { return toMailSlurpPreview(in, list[i].Shown(in.Address)) })
	})
}

// mailslurpEmailOf finds the email of the path's {emailId}, and its inbox.
func (s *API) mailslurpEmailOf(r *http.Request, write bool) (*mailbox.Message, *projections.Inbox, error) {
	if err := mailslurpMay(r, write); err != nil {
		return nil, nil, err
	}
	id := chi.URLParam(r, "emailId")
	if !family.ValidID(id) { // refused as mailslurpInbox refuses an inbox's
		return nil, nil, tempmail.Errorf(tempmail.Invalid, "emailId must be an email's id, a UUID")
	}
	m, in, err := s.MessageByID(r.Context(), id)
	return m, in, family.AsNotFound(err, "Email not found: "+tempmail.Excerpt(id, 64))
}

func (s *API) mailslurpGetEmail(w http.ResponseWriter, r *http.Request) {
	m, in, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.answerEmail(w, r, in, m)
}

func (s *API) mailslurpDeleteEmail(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, true)
	if err == nil {
		err = family.AsNotFound(s.Commands.DeleteMessage(r.Context(), m), "Email not found")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mailslurpMarkAsRead is markAsRead (PATCH /emails/{emailId}/read): the
// email marked read, as a preview. A read is an event that nothing
// undoes in tempmail, so read=false (mark unread) is refused.
func (s *API) mailslurpMarkAsRead(w http.ResponseWriter, r *http.Request) {
	m, in, err := s.mailslurpEmailOf(r, true)
	if err == nil {
		switch r.URL.Query().Get("read") {
		case "", "true":
		case "false":
			err = tempmail.Errorf(tempmail.Invalid, "read=false is not supported: tempmail keeps an email read once it is")
		default:
			err = tempmail.Errorf(tempmail.Invalid, "read must be true or false")
		}
	}
	if err == nil {
		id := m.ID
		m, err = s.Commands.MarkRead(r.Context(), m)
		err = family.AsNotFound(err, "Email not found: "+id) // deleted a moment ago
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, toMailSlurpPreview(in, m.Summary()))
}
