package mailboxapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

func (s *API) createTempEmailB(w http.ResponseWriter, r *http.Request) {
	owner, err := s.InboxOwner(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	var body struct {
		EmailName json.RawMessage `json:"email_name"`
	}
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	name, err := s.EmailName(body.EmailName, "email_name")
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	dom, err := s.ActiveDomainNamed(r, s.Config.Domains[0])
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsInvalid(err, "No domains available"))
		return
	}
	in, err := s.Commands.CreateInbox(r.Context(), command.Spec{Retention: mailbox.RetainMessages, Local: name, Random: 12, Domain: dom,
		Tenant: owner})
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusCreated, TempEmail{Success: true, Email: in.Address, InboxID: in.ID,
		CreatedAt: wire.At(in.CreatedAt), Token: in.Token})
}

// mailboxB resolves {username} to a live inbox on the family B domain.
func (s *API) mailboxB(w http.ResponseWriter, r *http.Request) (*projections.Inbox, bool) {
	user := strings.ToLower(chi.URLParam(r, "username"))
	addr, err := tempmail.NormalizeAddress(user + "@" + s.Config.Domains[0])
	var in *projections.Inbox
	if err == nil && !strings.Contains(user, "@") {
		in, err = s.Views.InboxByAddress(r.Context(), addr)
		in, err = family.CredentialIn(r.Context()).Visible(family.LiveInbox(in, err))
	} else {
		err = family.ErrNotFound
	}
	if err == nil && !s.MayReadByAddress(r, in) {
		err = family.ErrNotFound // a tenant's, or a catch-all domain's: not by its name alone
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Mailbox not found"))
		return nil, false
	}
	return in, true
}
