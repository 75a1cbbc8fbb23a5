package inboxapi

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/projections"
)

// Inboxes, in every family: made (family A with a lifetime, family B by
// name on the first domain, family C by token), looked at, ended, and
// found by address by the operator (catch-all domains). Creations go
// through package command and count against the client's share
// (creates.go).

// inboxesByAddressA answers GET /api/inboxes/?email=: the live inboxes
// with that address, whichever family made them. It is how the operator
// finds the inboxes a catch-all domain made for mail (nobody was given
// their id or token), so it always takes the API token. An address has
// at most one live inbox; the answer is an array so that none is [].
func (s *API) inboxesByAddressA(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	email := q.Get("email")
	if !q.Has("email") || email == "" {
		family.WriteError(w, r, s.Log, tempmail.Errorf(tempmail.Invalid, "email is required: GET /api/inboxes/?email=name@domain"))
		return
	}
	addr, err := tempmail.NormalizeAddress(email)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	out := []InboxByAddress{}
	in, err := s.Views.InboxByAddress(r.Context(), addr)
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
	case err != nil:
		family.WriteError(w, r, s.Log, err)
		return
	case in.Live(time.Now()):
		a := toInboxA(in)
		a.EmailCount = &in.Count
		out = append(out, InboxByAddress{Inbox: a, Token: in.Token})
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(len(out))) // as a tenant's list of inboxes says it (usage.go)
	family.WriteJSON(w, http.StatusOK, out)
}

func (s *API) createInboxA(w http.ResponseWriter, r *http.Request) {
	owner, err := s.InboxOwner(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	var body struct {
		DomainID json.RawMessage `json:"domain_id"`
		TTL      json.RawMessage `json:"ttl"`
	}
	if err := family.DecodeBody(r, &body); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	domainID, err := family.JSONInt(body.DomainID)
	switch {
	case len(body.DomainID) == 0 || string(body.DomainID) == "null":
		err = tempmail.Errorf(tempmail.Invalid, "domain_id is required")
	case err != nil:
		err = tempmail.Errorf(tempmail.Invalid, "domain_id must be an integer")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	ttl := int64(3600)
	if len(body.TTL) > 0 && string(body.TTL) != "null" {
		ttl, err = family.JSONInt(body.TTL)
	}
	minTTL, maxTTL := int64(s.Config.MinInboxTTL/time.Second), int64(s.Config.MaxInboxTTL/time.Second)
	if err != nil || ttl < minTTL || ttl > maxTTL {
		family.WriteError(w, r, s.Log, tempmail.Errorf(tempmail.Invalid, "ttl must be an integer between %d and %d", minTTL, maxTTL))
		return
	}
	var dom projections.Domain
	if domainID < 1 || domainID > math.MaxInt32 {
		err = family.ErrNotFound
	} else {
		dom, err = s.ActiveDomainOfID(r, int(domainID))
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, "Domain not found or inactive"))
		return
	}
	in, err := s.Commands.CreateInbox(r.Context(), command.Spec{Random: 10, Domain: dom,
		TTL: time.Duration(ttl) * time.Second, Tenant: owner})
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusCreated, toInboxA(in))
}

// lookupInboxA finds the inbox the path's {id} names, or answers 404.
func (s *API) lookupInboxA(w http.ResponseWriter, r *http.Request) (*projections.Inbox, bool) {
	in, err := s.InboxByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return nil, false
	}
	return in, true
}

func (s *API) getInboxA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	out := toInboxA(in)
	out.EmailCount = &in.Count
	family.WriteJSON(w, http.StatusOK, out)
}

func (s *API) deleteInboxA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	if err := s.Commands.DeleteInbox(r.Context(), in); err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
