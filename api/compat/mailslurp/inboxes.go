package mailslurp

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/mailbox"
	"tempmail/projections"
)

// The MailSlurp family's inboxes (mailslurp.go): made with the
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

func (s *API) mailslurpCreateInbox(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts := mailslurpInboxOptions{EmailAddress: q.Get("emailAddress"), DomainName: q.Get("domainName"),
		ExpiresAt: q.Get("expiresAt")}
	if v := q.Get("expiresIn"); v != "" {
		opts.ExpiresIn = json.RawMessage(v)
	}
	s.mailslurpCreate(w, r, opts)
}

func (s *API) mailslurpCreateInboxWithOptions(w http.ResponseWriter, r *http.Request) {
	var opts mailslurpInboxOptions
	if err := family.DecodeBody(r, &opts); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.mailslurpCreate(w, r, opts)
}

func (s *API) mailslurpCreateInboxWithDefaults(w http.ResponseWriter, r *http.Request) {
	s.mailslurpCreate(w, r, mailslurpInboxOptions{})
}

// mailslurpCreate makes an inbox as opts ask, for the key's tenant
// (InboxOwner), and answers 201 with it.
func (s *API) mailslurpCreate(w http.ResponseWriter, r *http.Request, opts mailslurpInboxOptions) {
	err := mailslurpMay(r, true)
	var owner string
	if err == nil {
		owner, err = s.InboxOwner(r)
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
		in, err = s.Commands.CreateInbox(r.Context(), command.Spec{Local: local, Random: 10,
			Domain: dom, TTL: ttl, Tenant: owner})
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusCreated, toMailSlurpInbox(in))
}

// mailslurpTTL is the lifetime opts ask for, within the server's bounds.
func (s *API) mailslurpTTL(opts mailslurpInboxOptions) (time.Duration, error) {
	ttl := min(max(s.Config.TokenInboxTTL, s.Config.MinInboxTTL), s.Config.MaxInboxTTL)
	switch {
	case len(opts.ExpiresIn) > 0 && string(opts.ExpiresIn) != "null":
		ms, err := family.JSONInt(opts.ExpiresIn)
		if err != nil || ms < 0 {
			return 0, tempmail.Errorf(tempmail.Invalid, "expiresIn must be a whole number of milliseconds")
		}
		ttl = time.Duration(min(ms, int64(s.Config.MaxInboxTTL/time.Millisecond)+1)) * time.Millisecond
	case opts.ExpiresAt != "":
		at, err := time.Parse(time.RFC3339Nano, opts.ExpiresAt)
		if err != nil {
			return 0, tempmail.Errorf(tempmail.Invalid, "expiresAt must be a time as ISO 8601 writes it")
		}
		ttl = time.Until(at).Round(time.Second)
	default:
		return ttl, nil
	}
	if ttl < s.Config.MinInboxTTL || ttl > s.Config.MaxInboxTTL {
		return 0, tempmail.Errorf(tempmail.Invalid, "an inbox lives from %s to %s here: expiresIn from %d to %d ms",
			s.Config.MinInboxTTL, s.Config.MaxInboxTTL, s.Config.MinInboxTTL.Milliseconds(), s.Config.MaxInboxTTL.Milliseconds())
	}
	return ttl, nil
}

// mailslurpAddress is the local part (empty: a random one) and the domain
// of the inbox opts ask for: emailAddress whole, or a random name on
// domainName, or on the default domain.
func (s *API) mailslurpAddress(r *http.Request, opts mailslurpInboxOptions) (string, projections.Domain, error) {
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
		if err := s.Names.Check(local); err != nil {
			return "", projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "Invalid emailAddress: %s", tempmail.Message(err, "is not a name"))
		}
	}
	if domain == "" {
		dom, err := s.DefaultDomain(r)
		return local, dom, err
	}
	if len(domain) > 253 {
		return "", projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "Domain not found or inactive")
	}
	domain = strings.ToLower(domain)
	dom, err := s.ActiveDomainNamed(r, domain)
	return local, dom, family.AsInvalid(err, "Domain not found or inactive: "+domain)
}

// mailslurpInboxes lists the key's tenant's live inboxes, newest first, at
// most size (default 100, at most 200): GET /inboxes.
func (s *API) mailslurpInboxes(w http.ResponseWriter, r *http.Request) {
	t, err := s.mailslurpTenant(r)
	var size int
	if err == nil {
		size, err = mailslurpInt(r, "size", 100, 1, family.MaxLimit)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	now := time.Now()
	page := []mailslurpInboxDto{}
	err = s.TenantInboxes(r.Context(), t.ID, func(ti projections.TenantInbox) (bool, error) {
		if !ti.Live(now) {
			return true, nil
		}
		in, err := s.Views.Inbox(r.Context(), ti.ID)
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
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WritePage(w, len(page), func(i int) any { return page[i] })
}

// mailslurpTenant is the tenant whose inboxes the request's key lists,
// once it may read them; the API token owns none.
func (s *API) mailslurpTenant(r *http.Request) (*projections.Tenant, error) {
	if err := mailslurpMay(r, false); err != nil {
		return nil, err
	}
	c := family.CredentialFrom(r)
	if c.Key == nil {
		return nil, tempmail.Errorf(tempmail.Invalid, "the API token owns no inboxes: list a tenant's with one of its keys")
	}
	t, err := s.Views.Tenant(r.Context(), c.Key.TenantID)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, family.ErrBadKey // deleted while the request came
	}
	return t, err
}

// mailslurpInboxOf finds the inbox of the path's {inboxId}.
func (s *API) mailslurpInboxOf(r *http.Request, write bool) (*projections.Inbox, error) {
	if err := mailslurpMay(r, write); err != nil {
		return nil, err
	}
	return s.mailslurpInbox(r, chi.URLParam(r, "inboxId"))
}

func (s *API) mailslurpGetInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailslurpInboxOf(r, false)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, toMailSlurpInbox(in))
}

func (s *API) mailslurpDeleteInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailslurpInboxOf(r, true)
	if err == nil {
		err = family.AsNotFound(s.Commands.DeleteInbox(r.Context(), in), "Inbox not found")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mailslurpEmptyInbox deletes every email of an inbox, one after another
// (the per-inbox cap bounds them), and keeps the inbox: emptyInbox (the
// inbox in ?inboxId=) and deleteAllInboxEmails (in the path).
func (s *API) mailslurpEmptyInbox(w http.ResponseWriter, r *http.Request) {
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
		list, err = s.Views.Messages(r.Context(), in)
	}
	for i := 0; err == nil && i < len(list); i++ {
		var m *mailbox.Message
		m, err = s.Views.MessageIn(r.Context(), in, list[i].ID)
		if err == nil {
			err = s.Commands.DeleteMessage(r.Context(), m)
		}
		if tempmail.KindOf(err) == tempmail.NotFound {
			err = nil // deleted meanwhile
		}
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
