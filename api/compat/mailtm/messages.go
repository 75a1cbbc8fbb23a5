package mailtm

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
)

// The MailTM family's messages and their sources (mailtm.go): an
// account's own, by its token; a tenant's key or the API token reach
// them by id (but list no account's: GET /messages is the account's).

// maxMailTMPage bounds ?page=: as far as lists page at all (api/family/list.go).
const maxMailTMPage = family.MaxOffset / mailtmPageSize

// mailtmPage reads ?page= (from 1; absent: 1).
func mailtmPage(r *http.Request) (int, error) {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxMailTMPage || len(v) > 7 {
		return 0, tempmail.Errorf(tempmail.Invalid, "page must be a whole number from 1 to %d", maxMailTMPage)
	}
	return n, nil
}

// writeMailTMCollection answers 200 with a collection of n items of typ
// (item(i) the i-th), page page of total, at path: in JSON-LD a
// hydra:Collection with its totalItems and, when it spans pages, its
// view; in JSON an array.
func writeMailTMCollection(w http.ResponseWriter, on bool, typ, path string, total, page, n int, item func(int) any) {
	if !on {
		family.WritePage(w, n, item)
		return
	}
	a := family.NewAnswer(w, http.StatusOK)
	a.Raw(`{"@context":"/contexts/` + typ + `","@id":"` + path + `","@type":"hydra:Collection","hydra:member":[`)
	for i := 0; i < n && a.More(); i++ {
		if i > 0 {
			a.Raw(",")
		}
		a.Value(item(i))
	}
	a.Raw(`],"hydra:totalItems":` + strconv.Itoa(total))
	if last := max(1, (total+mailtmPageSize-1)/mailtmPageSize); last > 1 {
		at := func(p int) string { return `"` + path + "?page=" + strconv.Itoa(p) + `"` }
		view := `,"hydra:view":{"@id":` + at(page) + `,"@type":"hydra:PartialCollectionView","hydra:first":` + at(1) +
			`,"hydra:last":` + at(last)
		if page > 1 {
			view += `,"hydra:previous":` + at(page-1)
		}
		if page < last {
			view += `,"hydra:next":` + at(page+1)
		}
		a.Raw(view + "}")
	}
	a.Raw("}")
	a.Finish()
}

// mailtmMessages lists the account's messages, newest first, a page of
// mailtmPageSize at a time.
func (s *API) mailtmMessages(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailtmSelf(r)
	page := 1
	if err == nil {
		page, err = mailtmPage(r)
	}
	var l projections.Listing
	if err == nil {
		l, err = s.Views.List(r.Context(), in, mailbox.Query{Offset: (page - 1) * mailtmPageSize, Limit: mailtmPageSize})
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	on := jsonLD(w)
	writeMailTMCollection(w, on, "Message", "/messages", l.Total, page, len(l.Items),
		func(i int) any { return toMailTMSummary(in, &l.Items[i], on) })
}

// mailtmMessageOf resolves {id} to a message the caller may reach (write:
// as mailtmCaller.may), and its account; on failure it has answered.
func (s *API) mailtmMessageOf(w http.ResponseWriter, r *http.Request, write bool) (*mailbox.Message, *projections.Inbox, bool) {
	m, err := s.mailtmCallerOf(r)
	if err == nil {
		err = m.may(write)
	}
	var msg *mailbox.Message
	var in *projections.Inbox
	if err == nil {
		msg, in, err = s.MessageByID(r.Context(), chi.URLParam(r, "id"))
	}
	if err == nil && !m.sees(in) {
		err = errMailTMNotFound
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Not Found"))
		return nil, nil, false
	}
	return msg, in, true
}

func (s *API) mailtmMessage(w http.ResponseWriter, r *http.Request) {
	m, in, ok := s.mailtmMessageOf(w, r, false)
	if !ok {
		return
	}
	family.WriteJSON(w, http.StatusOK, toMailTMMessage(in, m, jsonLD(w)))
}

// mailtmMarkSeen is PATCH /messages/{id} {"seen": true}: a message once
// seen stays seen here (this server keeps no unread mark), so seen false
// is refused for a message already seen.
func (s *API) mailtmMarkSeen(w http.ResponseWriter, r *http.Request) {
	m, in, ok := s.mailtmMessageOf(w, r, false)
	if !ok {
		return
	}
	var body struct {
		Seen *bool `json:"seen"`
	}
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	switch {
	case body.Seen == nil || *body.Seen == m.IsRead:
	case !*body.Seen:
		writeMailTMViolations(w, mailtmViolation{"seen", "A message seen cannot be made unseen on this server."})
		return
	default:
		var err error
		if m, err = s.Commands.MarkRead(r.Context(), m); err != nil {
			family.WriteError(w, r, s.Log, family.AsNotFound(err, "Not Found"))
			return
		}
	}
	family.WriteJSON(w, http.StatusOK, toMailTMMessage(in, m, jsonLD(w)))
}

func (s *API) mailtmDeleteMessage(w http.ResponseWriter, r *http.Request) {
	m, _, ok := s.mailtmMessageOf(w, r, true)
	if !ok {
		return
	}
	if err := s.Commands.DeleteMessage(r.Context(), m); err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Not Found"))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mailtmDownload is a message's downloadUrl: its source, as a file.
func (s *API) mailtmDownload(w http.ResponseWriter, r *http.Request) {
	m, _, ok := s.mailtmMessageOf(w, r, false)
	if !ok {
		return
	}
	s.ServeRaw(w, r, m, true)
}

// mailtmAttachment is an attachment's downloadUrl: ATTACH and its place
// among the message's attachments, from 1.
func (s *API) mailtmAttachment(w http.ResponseWriter, r *http.Request) {
	m, _, ok := s.mailtmMessageOf(w, r, false)
	if !ok {
		return
	}
	digits, found := strings.CutPrefix(chi.URLParam(r, "attachment"), "ATTACH")
	i, err := strconv.Atoi(digits)
	if !found || err != nil || len(digits) != 6 || i < 1 || i > len(m.Attachments) {
		family.WriteError(w, r, s.Log, errMailTMNotFound)
		return
	}
	s.ServeAttachment(w, r, m, &m.Attachments[i-1])
}

// mailtmSource is GET /sources/{id}: a message's source in JSON, for the
// clients that read it so; downloadUrl gives it as a file.
func (s *API) mailtmSource(w http.ResponseWriter, r *http.Request) {
	m, _, ok := s.mailtmMessageOf(w, r, false)
	if !ok {
		return
	}
	raw, err := s.RawBytes(r.Context(), m)
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Not Found"))
		return
	}
	on := jsonLD(w)
	family.WriteJSON(w, http.StatusOK, mailtmSourceOut{ld: ldOf(on, true, "Source", "/sources/"+m.ID), ID: m.ID,
		DownloadURL: "/messages/" + m.ID + "/download", Data: string(raw)})
}
