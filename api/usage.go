package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"tempmail"
	"tempmail/api/family"
	"tempmail/projections"
)

// What a tenant's key sees of its tenant: its inboxes, listed (GET
// /api/inboxes/ without email=, which is the admin's lookup by address),
// and its usage against its quota (GET /api/usage/). The list is read a
// page at a time, newest first, and no request looks at more than the
// newest tenantScanMax inboxes, however many the tenant has; the count
// is the tenant's entry's (projections.Tenant.Live).

// tenantScanMax bounds the inboxes of a tenant one request looks at:
// deeper pages and filters over more are refused, or say so.
const tenantScanMax = 10_000

// tenantInboxes calls visit with a tenant's inboxes, newest first, until
// it returns false or an error, or tenantScanMax were visited.
func (s *Server) tenantInboxes(ctx context.Context, tenant string, visit func(projections.TenantInbox) (bool, error)) error {
	n := 0
	var failed error
	err := s.Views.TenantInboxes(ctx, tenant, func(in projections.TenantInbox) bool {
		n++
		more, err := visit(in)
		failed = err
		return more && err == nil && n < tenantScanMax
	})
	if failed != nil {
		return failed
	}
	return err
}

// keyTenant returns the tenant asked about: the admin's ?tenant=<id>,
// else the tenant of the request's key; a request without either has none
// to ask about.
func (s *Server) keyTenant(r *http.Request) (*projections.Tenant, error) {
	c := family.CredentialFrom(r)
	if id := r.URL.Query().Get("tenant"); id != "" {
		if !c.IsAdmin() {
			return nil, tempmail.Errorf(tempmail.Forbidden, "tenant= is the admin's: a key asks about its own tenant")
		}
		if !family.ValidID(id) {
			return nil, family.AsNotFound(family.ErrNotFound, family.NotFoundA)
		}
		t, err := s.Views.Tenant(r.Context(), strings.ToLower(id))
		return t, family.AsNotFound(err, family.NotFoundA)
	}
	if c.Key == nil {
		if c.Admin {
			return nil, tempmail.Errorf(tempmail.Invalid, "this is a tenant's: ask with one of its keys, or give tenant=<id>")
		}
		return nil, family.ErrNoCredentials
	}
	t, err := s.Views.Tenant(r.Context(), c.Key.TenantID)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, family.ErrBadKey // deleted while the request came
	}
	return t, err
}

// inboxesA answers GET /api/inboxes/: with email=, the admin's lookup
// by address (inboxesByAddressA); without, the key's tenant's inboxes (or
// the admin's tenant=).
func (s *Server) inboxesA(w http.ResponseWriter, r *http.Request) {
	if q := r.URL.Query(); q.Has("email") || family.CredentialFrom(r).Key == nil && !q.Has("tenant") {
		if err := s.CheckToken(r); err != nil {
			family.WriteError(w, r, s.Log, err)
			return
		}
		s.inboxesByAddressA(w, r)
		return
	}
	s.tenantInboxesA(w, r)
}

// tenantInboxesA lists the key's tenant's live inboxes, newest first,
// paged as every family A list is, filtered by address (a part of it,
// in any case) and created_after.
func (s *Server) tenantInboxesA(w http.ResponseWriter, r *http.Request) {
	t, err := s.keyTenant(r)
	var q projections.Query
	if err == nil {
		q, err = family.ListQuery(r)
	}
	var address string
	var after time.Time
	if err == nil {
		address, after, err = inboxFilters(r)
	}
	if err == nil && q.Offset+q.Limit > tenantScanMax {
		err = tempmail.Errorf(tempmail.Invalid, "a tenant's inboxes are listed %d deep at most (offset plus limit): narrow the list with created_after",
			tenantScanMax)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	now := time.Now()
	filtered := address != "" || !after.IsZero()
	matched := 0 // beyond the offset, counted for X-Total-Count when filtered
	page := []inboxA{}
	err = s.tenantInboxes(r.Context(), t.ID, func(ti projections.TenantInbox) (bool, error) {
		if !ti.CreatedAt.After(after) {
			return false, nil // newest first: the rest are older still
		}
		if !ti.Live(now) || !strings.Contains(ti.Address, address) {
			return true, nil
		}
		matched++
		if matched <= q.Offset {
			return true, nil
		}
		if len(page) >= q.Limit {
			return filtered, nil // counted on, when a filter asks for a count
		}
		in, err := s.Views.Inbox(r.Context(), ti.ID)
		if tempmail.KindOf(err) == tempmail.NotFound || err == nil && !in.Live(now) {
			return true, nil // ended as the list was read
		}
		if err != nil {
			return false, err
		}
		a := toInboxA(in)
		a.EmailCount = &in.Count
		page = append(page, a)
		return true, nil
	})
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	total := t.Live
	if filtered {
		total = int64(matched) // among the newest tenantScanMax
	}
	w.Header().Set("X-Total-Count", strconv.FormatInt(total, 10))
	family.WritePage(w, len(page), func(i int) any { return page[i] })
}

// inboxFilters reads the address and created_after filters of a tenant's
// inbox list.
func inboxFilters(r *http.Request) (address string, after time.Time, err error) {
	q := r.URL.Query()
	address = strings.ToLower(q.Get("address"))
	if len(address) > family.MaxFilterLen {
		return "", after, tempmail.Errorf(tempmail.Invalid, "address must be at most %d bytes", family.MaxFilterLen)
	}
	if v := q.Get("created_after"); v != "" {
		if after, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return "", after, tempmail.Errorf(tempmail.Invalid, "created_after must be a time as RFC 3339 writes it")
		}
	}
	return address, after, nil
}

// usage is a tenant's use of its quota, one count and its limit (0:
// unlimited) for each.
type usage struct {
	Inboxes       usageOf `json:"inboxes"`
	MessagesToday usageOf `json:"messages_today"`
	StorageBytes  usageOf `json:"storage_bytes"`
	Webhooks      usageOf `json:"webhooks"`
}

type usageOf struct {
	Current int64 `json:"current"`
	Limit   int64 `json:"limit"`
}

// usageA answers GET /api/usage/ for the key's tenant: its live inboxes
// (its entry), its mail today and stored and its inboxes' subscriptions
// (projections.Usage).
func (s *Server) usageA(w http.ResponseWriter, r *http.Request) {
	t, err := s.keyTenant(r)
	var use projections.Usage
	now := time.Now()
	if err == nil {
		use, err = s.Views.Usage(r.Context(), t.ID, now)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, usage{
		Inboxes:       usageOf{Current: t.Live, Limit: t.Quota.Inboxes},
		MessagesToday: usageOf{Current: use.MessagesToday, Limit: t.Quota.MessagesPerDay},
		StorageBytes:  usageOf{Current: use.StorageBytes, Limit: t.Quota.StorageBytes},
		Webhooks:      usageOf{Current: use.Webhooks, Limit: t.Quota.Webhooks},
	})
}
