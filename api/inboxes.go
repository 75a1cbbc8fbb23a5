package api

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/command"
	"tempmail/events"
	"tempmail/projections"
	"tempmail/wire"
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
func (s *Server) inboxesByAddressA(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	email := q.Get("email")
	if !q.Has("email") || email == "" {
		writeError(w, r, s.log, tempmail.Errorf(tempmail.Invalid, "email is required: GET /api/inboxes/?email=name@domain"))
		return
	}
	addr, err := tempmail.NormalizeAddress(email)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := []inboxByAddressA{}
	in, err := s.views.InboxByAddress(r.Context(), addr)
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
	case err != nil:
		writeError(w, r, s.log, err)
		return
	case in.Live(time.Now()):
		a := toInboxA(in)
		a.EmailCount = &in.Count
		out = append(out, inboxByAddressA{inboxA: a, Token: in.Token})
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(len(out))) // as a tenant's list of inboxes says it (usage.go)
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createInboxA(w http.ResponseWriter, r *http.Request) {
	owner, err := s.inboxOwner(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var body struct {
		DomainID json.RawMessage `json:"domain_id"`
		TTL      json.RawMessage `json:"ttl"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	domainID, err := jsonInt(body.DomainID)
	switch {
	case len(body.DomainID) == 0 || string(body.DomainID) == "null":
		err = tempmail.Errorf(tempmail.Invalid, "domain_id is required")
	case err != nil:
		err = tempmail.Errorf(tempmail.Invalid, "domain_id must be an integer")
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	ttl := int64(3600)
	if len(body.TTL) > 0 && string(body.TTL) != "null" {
		ttl, err = jsonInt(body.TTL)
	}
	minTTL, maxTTL := int64(s.cfg.MinInboxTTL/time.Second), int64(s.cfg.MaxInboxTTL/time.Second)
	if err != nil || ttl < minTTL || ttl > maxTTL {
		writeError(w, r, s.log, tempmail.Errorf(tempmail.Invalid, "ttl must be an integer between %d and %d", minTTL, maxTTL))
		return
	}
	var dom projections.Domain
	if domainID < 1 || domainID > math.MaxInt32 {
		err = errNotFound
	} else {
		dom, err = s.activeDomainOfID(r, int(domainID))
	}
	if err != nil {
		writeError(w, r, s.log, asNotFound(err, "Domain not found or inactive"))
		return
	}
	in, err := s.commands.CreateInbox(r.Context(), command.Spec{Random: 10, Domain: dom,
		TTL: time.Duration(ttl) * time.Second, Tenant: owner})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, toInboxA(in))
}

// lookupInboxA finds the inbox the path's {id} names, or answers 404.
func (s *Server) lookupInboxA(w http.ResponseWriter, r *http.Request) (*projections.Inbox, bool) {
	in, err := s.inboxByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, s.log, asNotFound(err, notFoundA))
		return nil, false
	}
	return in, true
}

func (s *Server) getInboxA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	out := toInboxA(in)
	out.EmailCount = &in.Count
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) deleteInboxA(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookupInboxA(w, r)
	if !ok {
		return
	}
	if err := s.commands.DeleteInbox(r.Context(), in); err != nil {
		writeError(w, r, s.log, asNotFound(err, notFoundA))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) createTempEmailB(w http.ResponseWriter, r *http.Request) {
	owner, err := s.inboxOwner(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var body struct {
		EmailName json.RawMessage `json:"email_name"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	name, err := s.emailName(body.EmailName, "email_name")
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	dom, err := s.activeDomainNamed(r, s.cfg.Domains[0])
	if err != nil {
		writeError(w, r, s.log, asInvalid(err, "No domains available"))
		return
	}
	in, err := s.commands.CreateInbox(r.Context(), command.Spec{Retention: events.RetainMessages, Local: name, Random: 12, Domain: dom,
		Tenant: owner})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, tempEmailB{Success: true, Email: in.Address, InboxID: in.ID,
		CreatedAt: wire.At(in.CreatedAt), Token: in.Token})
}

// emailName validates a wanted name, sent as field; empty means "pick one
// at random". Every family's chosen names pass here.
func (s *Server) emailName(raw json.RawMessage, field string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	invalid := func(why string) error { return tempmail.Errorf(tempmail.Invalid, "Invalid %s: %s", field, why) }
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", invalid("must be a string")
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return "", nil
	}
	if err := s.names.Check(name); err != nil {
		return "", invalid(tempmail.Message(err, "is not a name"))
	}
	return name, nil
}

// asInvalid turns a NotFound into a 400 with msg.
func asInvalid(err error, msg string) error {
	if tempmail.KindOf(err) == tempmail.NotFound {
		return tempmail.Errorf(tempmail.Invalid, "%s", msg)
	}
	return err
}

// mailboxB resolves {username} to a live inbox on the family B domain.
func (s *Server) mailboxB(w http.ResponseWriter, r *http.Request) (*projections.Inbox, bool) {
	user := strings.ToLower(chi.URLParam(r, "username"))
	addr, err := tempmail.NormalizeAddress(user + "@" + s.cfg.Domains[0])
	var in *projections.Inbox
	if err == nil && !strings.Contains(user, "@") {
		in, err = s.views.InboxByAddress(r.Context(), addr)
		in, err = credentialIn(r.Context()).visible(liveInbox(in, err))
	} else {
		err = errNotFound
	}
	if err == nil && !s.mayReadByAddress(r, in) {
		err = errNotFound // a tenant's, or a catch-all domain's: not by its name alone
	}
	if err != nil {
		writeError(w, r, s.log, asNotFound(err, "Mailbox not found"))
		return nil, false
	}
	return in, true
}

// tokenInboxOf resolves the {token} path parameter to a live inbox. A token
// that no inbox can have is answered without asking the views.
func (s *Server) tokenInboxOf(r *http.Request) (*projections.Inbox, error) {
	tok := chi.URLParam(r, "token")
	if !validToken(tok) {
		return nil, errNotFoundInbox
	}
	in, err := s.views.InboxByToken(r.Context(), tok)
	if tempmail.KindOf(err) == tempmail.NotFound || (err == nil && (!in.Live(time.Now()) || !credentialFrom(r).sees(in))) {
		return nil, errNotFoundInbox
	}
	return in, err
}

// createTokenInbox makes a family C inbox: a random name on the default
// domain, or the name and domain asked for (family B's rules for names).
func (s *Server) createTokenInbox(w http.ResponseWriter, r *http.Request) {
	owner, err := s.inboxOwner(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var body struct {
		Name   json.RawMessage `json:"name"`
		Domain string          `json:"domain"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	name, err := s.emailName(body.Name, "name")
	var dom projections.Domain
	switch {
	case err != nil:
	case body.Domain == "":
		dom, err = s.defaultDomain(r)
	case len(body.Domain) > 253:
		err = tempmail.Errorf(tempmail.Invalid, "Domain not found or inactive")
	default:
		dom, err = s.activeDomainNamed(r, strings.ToLower(body.Domain))
		err = asInvalid(err, "Domain not found or inactive")
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	in, err := s.commands.CreateInbox(r.Context(), command.Spec{Local: name, Random: 10,
		Domain: dom, TTL: s.cfg.TokenInboxTTL, Tenant: owner})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, tokenInbox{Token: in.Token, Address: in.Address,
		CreatedAt: wire.At(in.CreatedAt), ExpiresAt: wire.At(in.ExpiresAt)})
}

func (s *Server) getTokenInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, tokenInboxDetail{Inbox: tokenInbox{Token: in.Token, Address: in.Address,
		CreatedAt: wire.At(in.CreatedAt), ExpiresAt: wire.At(in.ExpiresAt)}, Count: in.Count})
}

func (s *Server) deleteTokenInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err == nil {
		err = asNotFound(s.commands.DeleteInbox(r.Context(), in), "Inbox not found")
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
