package tokenapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/projections"
	"tempmail/wire"
)

// tokenInboxOf resolves the {token} path parameter to a live inbox. A token
// that no inbox can have is answered without asking the views.
func (s *API) tokenInboxOf(r *http.Request) (*projections.Inbox, error) {
	tok := chi.URLParam(r, "token")
	if !family.ValidToken(tok) {
		return nil, family.ErrNotFoundInbox
	}
	in, err := s.Views.InboxByToken(r.Context(), tok)
	if tempmail.KindOf(err) == tempmail.NotFound || (err == nil && (!in.Live(time.Now()) || !family.CredentialFrom(r).Sees(in))) {
		return nil, family.ErrNotFoundInbox
	}
	return in, err
}

// createTokenInbox makes a family C inbox: a random name on the default
// domain, or the name and domain asked for (family B's rules for names).
func (s *API) createTokenInbox(w http.ResponseWriter, r *http.Request) {
	owner, err := s.InboxOwner(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	var body struct {
		Name   json.RawMessage `json:"name"`
		Domain string          `json:"domain"`
	}
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	name, err := s.EmailName(body.Name, "name")
	var dom projections.Domain
	switch {
	case err != nil:
	case body.Domain == "":
		dom, err = s.DefaultDomain(r)
	case len(body.Domain) > 253:
		err = tempmail.Errorf(tempmail.Invalid, "Domain not found or inactive")
	default:
		dom, err = s.ActiveDomainNamed(r, strings.ToLower(body.Domain))
		err = family.AsInvalid(err, "Domain not found or inactive")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	in, err := s.Commands.CreateInbox(r.Context(), command.Spec{Local: name, Random: 10,
		Domain: dom, TTL: s.Config.TokenInboxTTL, Tenant: owner})
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusCreated, wire.Inbox{Token: in.Token, Address: in.Address,
		CreatedAt: wire.At(in.CreatedAt), ExpiresAt: wire.At(in.ExpiresAt)})
}

func (s *API) getTokenInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, wire.InboxDetail{Inbox: wire.Inbox{Token: in.Token, Address: in.Address,
		CreatedAt: wire.At(in.CreatedAt), ExpiresAt: wire.At(in.ExpiresAt)}, Count: in.Count})
}

func (s *API) deleteTokenInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err == nil {
		err = family.AsNotFound(s.Commands.DeleteInbox(r.Context(), in), "Inbox not found")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
