package inboxapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
)

// What a tenant's key sees of its tenant: its inboxes, listed (GET
// /api/inboxes/ without email=, which is the admin's lookup by address),
// and its usage against its quota (GET /api/usage/). The list is read a
// page at a time, newest first, and no request looks at more than the
// newest tenantScanMax inboxes, however many the tenant has; the count
// is the tenant's entry's (projections.Tenant.Live).

// inboxesA answers GET /api/inboxes/: with email=, the admin's lookup
// by address (inboxesByAddressA); without, the key's tenant's inboxes (or
// the admin's tenant=).
func (s *API) inboxesA(w http.ResponseWriter, r *http.Request) {
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
func (s *API) tenantInboxesA(w http.ResponseWriter, r *http.Request) {
	t, err := s.KeyTenant(r)
	var q mailbox.Query
	if err == nil {
		q, err = family.ListQuery(r)
	}
	var address string
	var after time.Time
	if err == nil {
		address, after, err = inboxFilters(r)
	}
	if err == nil && q.Offset+q.Limit > family.TenantScanMax {
		err = tempmail.Errorf(tempmail.Invalid, "a tenant's inboxes are listed %d deep at most (offset plus limit): narrow the list with created_after",
			family.TenantScanMax)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	now := time.Now()
	filtered := address != "" || !after.IsZero()
	matched := 0 // beyond the offset, counted for X-Total-Count when filtered
	page := []Inbox{}
	err = s.TenantInboxes(r.Context(), t.ID, func(ti projections.TenantInbox) (bool, error) {
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
		total = int64(matched) // among the newest family.TenantScanMax
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
// (mailbox.Usage).
func (s *API) usageA(w http.ResponseWriter, r *http.Request) {
	t, err := s.KeyTenant(r)
	var use mailbox.Usage
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
