package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/command"
	"tempmail/events"
	"tempmail/projections"
)

// The MailSlurp family's inboxes (compat_mailslurp.go): made with the
// options of createInbox (query parameters) or createInboxWithOptions
// (a JSON body), listed, looked at, emptied and deleted. An inbox lives
// --token-inbox-ttl unless expiresIn or expiresAt say otherwise, within
// --min-inbox-ttl and --max-inbox-ttl.

// mailslurpInboxOptions are the options of a new inbox that tempmail
// heeds; the others (name, tags, description, favourite, inboxType, ...)
// are taken and not kept.
type mailslurpInboxOptions struct {
	EmailAddress string          `json:"emailAddress"`
	DomainName   string          `json:"domainName"`
	ExpiresAt    string          `json:"expiresAt"`
	ExpiresIn    json.RawMessage `json:"expiresIn"`
}

// maxAddressLen bounds an address asked for: local part and domain.
const maxAddressLen = 64 + 1 + 253

func (s *Server) mailslurpCreateInbox(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts := mailslurpInboxOptions{EmailAddress: q.Get("emailAddress"), DomainName: q.Get("domainName"),
		ExpiresAt: q.Get("expiresAt")}
	if v := q.Get("expiresIn"); v != "" {
		opts.ExpiresIn = json.RawMessage(v)
	}
	s.mailslurpCreate(w, r, opts)
}

func (s *Server) mailslurpCreateInboxWithOptions(w http.ResponseWriter, r *http.Request) {
	var opts mailslurpInboxOptions
	if err := decodeBody(r, &opts); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.mailslurpCreate(w, r, opts)
}

func (s *Server) mailslurpCreateInboxWithDefaults(w http.ResponseWriter, r *http.Request) {
	s.mailslurpCreate(w, r, mailslurpInboxOptions{})
}

// mailslurpCreate makes an inbox as opts ask, for the key's tenant
// (inboxOwner), and answers 201 with it.
func (s *Server) mailslurpCreate(w http.ResponseWriter, r *http.Request, opts mailslurpInboxOptions) {
	err := mailslurpMay(r, true)
	var owner string
	if err == nil {
		owner, err = s.inboxOwner(r)
	}
	var ttl time.Duration
	if err == nil {
		ttl, err = s.mailslurpTTL(opts)
	}
	var local string
	var dom projections.Domain
	if err == nil {
		local, dom, err = s.mailslurpAddress(r, opts)
	}
	var in *projections.Inbox
	if err == nil {
		// Family A's kind: an inbox with a lifetime.
		in, err = s.commands.CreateInbox(r.Context(), command.Spec{Retention: events.RetainWithInbox, Local: local, Random: 10,
			Domain: dom, TTL: ttl, Tenant: owner})
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, toMailSlurpInbox(in))
}

// mailslurpTTL is the lifetime opts ask for, within the server's bounds.
func (s *Server) mailslurpTTL(opts mailslurpInboxOptions) (time.Duration, error) {
	ttl := min(max(s.cfg.TokenInboxTTL, s.cfg.MinInboxTTL), s.cfg.MaxInboxTTL)
	switch {
	case len(opts.ExpiresIn) > 0 && string(opts.ExpiresIn) != "null":
		ms, err := jsonInt(opts.ExpiresIn)
		if err != nil || ms < 0 {
			return 0, tempmail.Errorf(tempmail.Invalid, "expiresIn must be a whole number of milliseconds")
		}
		ttl = time.Duration(min(ms, int64(s.cfg.MaxInboxTTL/time.Millisecond)+1)) * time.Millisecond
	case opts.ExpiresAt != "":
		at, err := time.Parse(time.RFC3339Nano, opts.ExpiresAt)
		if err != nil {
			return 0, tempmail.Errorf(tempmail.Invalid, "expiresAt must be a time as ISO 8601 writes it")
		}
		ttl = time.Until(at).Round(time.Second)
	default:
		return ttl, nil
	}
	if ttl < s.cfg.MinInboxTTL || ttl > s.cfg.MaxInboxTTL {
		return 0, tempmail.Errorf(tempmail.Invalid, "an inbox lives from %s to %s here: expiresIn from %d to %d ms",
			s.cfg.MinInboxTTL, s.cfg.MaxInboxTTL, s.cfg.MinInboxTTL.Milliseconds(), s.cfg.MaxInboxTTL.Milliseconds())
	}
	return ttl, nil
}

// mailslurpAddress is the local part (empty: a random one) and the domain
// of the inbox opts ask for: emailAddress whole, or a random name on
// domainName, or on the default domain.
func (s *Server) mailslurpAddress(r *http.Request, opts mailslurpInboxOptions) (string, projections.Domain, error) {
	domain := opts.DomainName
	var local string
	if opts.EmailAddress != "" {
		if len(opts.EmailAddress) > maxAddressLen {
			return "", projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "emailAddress is longer than %d bytes", maxAddressLen)
		}
		addr, err := tempmail.NormalizeAddress(opts.EmailAddress)
		if err != nil {
			return "", projections.Domain{}, err
		}
		local, domain = tempmail.SplitAddress(addr)
		if err := s.names.Check(local); err != nil {
			return "", projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "Invalid emailAddress: %s", tempmail.Message(err, "is not a name"))
		}
	}
	if domain == "" {
		dom, err := s.defaultDomain(r)
		return local, dom, err
	}
	if len(domain) > 253 {
		return "", projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "Domain not found or inactive")
	}
	domain = strings.ToLower(domain)
	dom, err := s.activeDomainNamed(r, domain)
	return local, dom, asInvalid(err, "Domain not found or inactive: "+domain)
}

// mailslurpInboxes lists the key's tenant's live inboxes, newest first, at
// most size (default 100, at most 200): GET /inboxes.
func (s *Server) mailslurpInboxes(w http.ResponseWriter, r *http.Request) {
	err := mailslurpMay(r, false)
	var size int
	if err == nil {
		size, err = mailslurpInt(r, "size", 100, 1, maxLimit)
	}
	c := credentialFrom(r)
	if err == nil && c.key == nil {
		err = tempmail.Errorf(tempmail.Invalid, "the API token owns no inboxes: list a tenant's with one of its keys")
	}
	var t *projections.Tenant
	if err == nil {
		t, err = s.views.Tenant(r.Context(), c.key.TenantID)
		if tempmail.KindOf(err) == tempmail.NotFound {
			err = errBadKey // deleted while the request came
		}
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	now := time.Now()
	page := []mailslurpInboxDto{}
	err = s.tenantInboxes(r.Context(), t.ID, func(ti projections.TenantInbox) (bool, error) {
		if !ti.Live(now) {
			return true, nil
		}
		in, err := s.views.Inbox(r.Context(), ti.ID)
		if tempmail.KindOf(err) == tempmail.NotFound || err == nil && !in.Live(now) {
			return true, nil // ended as the list was read
		}
		if err != nil {
			return false, err
		}
		page = append(page, toMailSlurpInbox(in))
		return len(page) < size, nil
	})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writePage(w, len(page), func(i int) any { return page[i] })
}

// mailslurpInboxOf finds the inbox of the path's {inboxId}.
func (s *Server) mailslurpInboxOf(r *http.Request, write bool) (*projections.Inbox, error) {
	if err := mailslurpMay(r, write); err != nil {
		return nil, err
	}
	return s.mailslurpInbox(r, chi.URLParam(r, "inboxId"))
}

func (s *Server) mailslurpGetInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailslurpInboxOf(r, false)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toMailSlurpInbox(in))
}

func (s *Server) mailslurpDeleteInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailslurpInboxOf(r, true)
	if err == nil {
		err = asNotFound(s.commands.DeleteInbox(r.Context(), in), "Inbox not found")
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mailslurpEmptyInbox deletes every email of an inbox, one after another
// (the per-inbox cap bounds them), and keeps the inbox: emptyInbox (the
// inbox in ?inboxId=) and deleteAllInboxEmails (in the path).
func (s *Server) mailslurpEmptyInbox(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "inboxId")
	if id == "" {
		id = r.URL.Query().Get("inboxId")
	}
	err := mailslurpMay(r, true)
	var in *projections.Inbox
	if err == nil {
		in, err = s.mailslurpInbox(r, id)
	}
	var list []projections.Summary
	if err == nil {
		list, err = s.views.Messages(r.Context(), in)
	}
	for i := 0; err == nil && i < len(list); i++ {
		var m *projections.Message
		m, err = s.views.MessageIn(r.Context(), in, list[i].ID)
		if err == nil {
			err = s.commands.DeleteMessage(r.Context(), m)
		}
		if tempmail.KindOf(err) == tempmail.NotFound {
			err = nil // deleted meanwhile
		}
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
