package mailtm

import (
	"net/http"
	"strings"

	"tempmail"
	"tempmail/api/family"
	"tempmail/projections"
)

// The MailTM family's event source (mailtm.go): mail.tm pushes an
// account's changes through a Mercure hub, at a URL of its own, which
// clients subscribe to with ?topic=/accounts/{id} and the account's token
// in Bearer. Here the hub is /compat/mailtm/.well-known/mercure, and its
// events are an inbox's event stream (streams.go): a new message is an
// unnamed event (type "message", what EventSource's onmessage is given)
// whose data is the message as GET /messages lists it; a message read or
// deleted is one too, with seen or isDeleted (renderMailTMChange).

// maxTopicBytes bounds ?topic=.
const maxTopicBytes = 128

func renderMailTM(in *projections.Inbox, m *projections.Summary) any {
	return toMailTMSummary(in, m, true)
}

func (s *API) mailtmEvents(w http.ResponseWriter, r *http.Request) {
	m, err := s.mailtmCallerOf(r)
	if err == nil {
		err = m.may(false)
	}
	topic := r.URL.Query().Get("topic")
	id, ok := strings.CutPrefix(topic, "/accounts/")
	if err == nil && (!ok || len(topic) > maxTopicBytes) {
		err = tempmail.Errorf(tempmail.Invalid, "topic must be /accounts/{id}, the account's")
	}
	var in *projections.Inbox
	if err == nil {
		in, err = s.InboxByID(r.Context(), id)
	}
	if err == nil && !m.sees(in) {
		err = errMailTMNotFound
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Not Found"))
		return
	}
	s.StreamWith(w, r, in, renderMailTM, renderMailTMChange)
}

// mailtmChanged is a message read or deleted, as mail.tm's hub tells it:
// the message again, seen or isDeleted, as an unnamed event, which mail.tm
// clients tell apart by those two (mailjs's "seen" and "delete"). Only
// what the change says is given: the message may be gone.
type mailtmChanged struct {
	ld
	ID        string `json:"id"`
	AccountID string `json:"accountId"`
	Seen      bool   `json:"seen"`
	IsDeleted bool   `json:"isDeleted"`
}

func renderMailTMChange(in *projections.Inbox, kind projections.ChangeKind, id string) (string, any) {
	return string(projections.ChangeMessage), mailtmChanged{ld: ldOf(true, false, "Message", "/messages/"+id), ID: id,
		AccountID: in.ID, Seen: kind == projections.ChangeRead, IsDeleted: kind == projections.ChangeDeleted}
}
