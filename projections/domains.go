package projections

import (
	"context"
	"slices"
	"strconv"

	"tempmail"
	"tempmail/events"
	"tempmail/projections/view"
)

// Domains, as the views hold them (applied from DomainAdded and
// DomainDeactivated, by the sys partition's worker):
//
//	d.<id>          a live domain, by its id
//	dn.<name>       the same, by its name (events.AddressKey of it)
//	dp              the public domains, in id order: at most MaxPublicDomains
//	dt.<tenantID>   a tenant's private domains' ids, in order: as many as its claims allow
//
// So a domain is found by its name or id with one get, whatever the
// number of domains, and what a list shows is one entry of bounded size
// (a tenant's, its ids, each domain one get more). A deactivated domain
// leaves the views, and then the log.

// MaxPublicDomains bounds the public domains: each is in the one list
// every keyless client reads.
const MaxPublicDomains = 1000

const publicDomainsKey = "dp"

func domainKey(id int) string               { return "d." + strconv.Itoa(id) }
func domainNameKey(name string) string      { return "dn." + events.AddressKey(name) }
func tenantDomainsKey(tenant string) string { return "dt." + tenant }

// legacyDomains is the subject of every domain's events in a log before
// format 4.
const legacyDomains = "ev.sys.domains"

// domainAdded records a domain as the event says it is: a new one (ID 0:
// its id is the event's sequence; an id of a log before format 4 as it is),
// or a change of a live one. Each entry it writes is checked on its own: a
// batch written in part is applied again (the domain's entry first, then
// what finds it).
func (t *tx) domainAdded(ev *events.DomainAdded) error {
	id := ev.ID
	if id == 0 {
		id = int(t.Seq)
	}
	d, ds, err := load[Domain](t, domainKey(id))
	if err != nil {
		return err
	}
	if !t.Applied(ds) {
		prev := Domain{}
		if ds.Live() {
			prev = *d
		}
		if ev.TenantID == "" && prev.ID == 0 {
			pub, ps, err := load[DomainList](t, publicDomainsKey)
			if err != nil {
				return err
			}
			if ps.Live() && len(pub.Items) >= MaxPublicDomains {
				t.Moot() // beyond the cap (the command refuses it first)
				return nil
			}
		}
		next := Domain{Meta: d.Meta, ID: id, Name: ev.Name, Active: true, API: ev.API, TenantID: ev.TenantID,
			CatchAll: ev.CatchAll, Label: ev.Label, Server: ev.Server, Event: t.Seq, ClaimSeq: prev.ClaimSeq,
			Legacy: slices.Clone(prev.Legacy)}
		if ev.ClaimBack > 0 {
			next.ClaimSeq = t.Seq - ev.ClaimBack
		}
		legacy := t.Subject == legacyDomains
		if legacy {
			next.Legacy = append(next.Legacy, t.Seq)
		}
		if prev.Event != 0 && !legacy {
			t.Forget.Seqs = append(t.Forget.Seqs, prev.Event) // what it was: superseded
		}
		if prev.ID != 0 && (prev.Name != next.Name || prev.TenantID != next.TenantID) {
			// A log before format 4 could reuse an id for another name.
			if err := t.unlistDomain(prev.ID, prev.Name, prev.TenantID); err != nil {
				return err
			}
		}
		*d = next
		t.Save(ds)
	}
	if !ds.Live() || d.Seq > t.Seq {
		return nil // a later event made it what it is, and indexed it
	}
	return t.indexDomain(d)
}

// domainDeactivated takes a domain out of the views; the log forgets its
// events once they are written (events.ForgetDomain), and its tenant's
// claim of it. Applied again after a batch written in part, it finishes
// taking it out of its name's entry and its list.
func (t *tx) domainDeactivated(ev *events.DomainDeactivated) error {
	d, ds, err := load[Domain](t, domainKey(ev.ID))
	if err != nil {
		return err
	}
	if t.Applied(ds) {
		if d.Gone && d.Seq == t.Seq {
			n, err := t.nameEntry(ev.Name)
			if err != nil || n == nil || n.ID != ev.ID {
				return err
			}
			return t.unlistDomain(ev.ID, ev.Name, n.TenantID)
		}
		return nil
	}
	if !ds.Live() || d.Name != ev.Name {
		t.Moot() // an unknown domain, or gone already
		return nil
	}
	f := events.ForgetDomain{Name: d.Name, Legacy: d.Legacy}
	if t.Subject == legacyDomains {
		f.Legacy = append(slices.Clone(f.Legacy), t.Seq)
	} else {
		f.Seq = t.Seq
	}
	t.Forget.Domains = append(t.Forget.Domains, f)
	if d.ClaimSeq != 0 {
		t.Forget.Claims = append(t.Forget.Claims, events.ForgetClaim{Seq: d.ClaimSeq, Type: events.TypeTenantDomainAdded, ID: d.Name})
	}
	if err := t.unlistDomain(d.ID, d.Name, d.TenantID); err != nil {
		return err
	}
	t.Remove(ds)
	return nil
}

// nameEntry is the live domain a name's entry holds, or nil.
func (t *tx) nameEntry(name string) (*Domain, error) {
	n, ns, err := load[Domain](t, domainNameKey(name))
	if err != nil || !ns.Live() {
		return nil, err
	}
	return n, nil
}

// indexDomain writes d where it is found by name and listed, each entry
// unless it reflects this event already.
func (t *tx) indexDomain(d *Domain) error {
	n, ns, err := load[Domain](t, domainNameKey(d.Name))
	if err != nil {
		return err
	}
	if !t.Applied(ns) {
		meta := n.Meta
		*n = *d
		n.Meta = meta
		t.Save(ns)
	}
	if d.TenantID != "" {
		l, ls, err := load[DomainIDs](t, tenantDomainsKey(d.TenantID))
		if err != nil || t.Applied(ls) {
			return err
		}
		if !ls.Live() {
			l.IDs = nil
		}
		if i, found := slices.BinarySearch(l.IDs, d.ID); !found {
			l.IDs = slices.Insert(l.IDs, i, d.ID)
			t.Save(ls)
		}
		return nil
	}
	l, ls, err := load[DomainList](t, publicDomainsKey)
	if err != nil || t.Applied(ls) {
		return err
	}
	item := *d
	item.Meta, item.Legacy = view.Meta{}, nil
	if !ls.Live() {
		l.Items = nil
	}
	i, found := slices.BinarySearchFunc(l.Items, d.ID, func(x Domain, id int) int { return x.ID - id })
	if found {
		l.Items[i] = item
	} else {
		l.Items = slices.Insert(l.Items, i, item)
	}
	t.Save(ls)
	return nil
}

// unlistDomain takes the domain id of name out of its name's entry and
// its list (its tenant's, or the public one), each unless it reflects
// this event already.
func (t *tx) unlistDomain(id int, name, tenant string) error {
	n, ns, err := load[Domain](t, domainNameKey(name))
	if err != nil {
		return err
	}
	if ns.Live() && n.ID == id {
		t.Remove(ns)
	}
	if tenant != "" {
		l, ls, err := load[DomainIDs](t, tenantDomainsKey(tenant))
		if err != nil || !ls.Live() || t.Applied(ls) {
			return err
		}
		if i, found := slices.BinarySearch(l.IDs, id); found {
			l.IDs = slices.Delete(l.IDs, i, i+1)
			if len(l.IDs) == 0 {
				t.Remove(ls)
			} else {
				t.Save(ls)
			}
		}
		return nil
	}
	l, ls, err := load[DomainList](t, publicDomainsKey)
	if err != nil || !ls.Live() || t.Applied(ls) {
		return err
	}
	if i := slices.IndexFunc(l.Items, func(x Domain) bool { return x.ID == id }); i >= 0 {
		l.Items = slices.Delete(l.Items, i, i+1)
		if len(l.Items) == 0 {
			t.Remove(ls)
		} else {
			t.Save(ls)
		}
	}
	return nil
}

// DomainByName returns the live domain of a name (lower-case A-labels).
func (r *Reader) DomainByName(ctx context.Context, name string) (*Domain, error) {
	return r.domainAt(ctx, domainNameKey(name), false)
}

// LatestDomainByName is DomainByName read from the bucket itself, past
// this process's cache: a domain another process added is there once
// its addition returned, before this process's watcher sees it.
func (r *Reader) LatestDomainByName(ctx context.Context, name string) (*Domain, error) {
	return r.domainAt(ctx, domainNameKey(name), true)
}

// DomainByID returns the live domain of an id.
func (r *Reader) DomainByID(ctx context.Context, id int) (*Domain, error) {
	return r.domainAt(ctx, domainKey(id), false)
}

// LatestDomainByID is DomainByID past this process's cache.
func (r *Reader) LatestDomainByID(ctx context.Context, id int) (*Domain, error) {
	return r.domainAt(ctx, domainKey(id), true)
}

// domainAt reads the domain an entry holds, past the cache when latest.
func (r *Reader) domainAt(ctx context.Context, key string, latest bool) (*Domain, error) {
	var d Domain
	if err := r.getAt(ctx, key, &d, "domain", latest); err != nil {
		return nil, err
	}
	return &d, nil
}

// PublicDomains returns the public domains, in id order; latest reads
// them past this process's cache.
func (r *Reader) PublicDomains(ctx context.Context, latest bool) ([]Domain, error) {
	return r.domainList(ctx, publicDomainsKey, latest)
}

// TenantDomains returns a tenant's private domains, in id order: its list
// of ids, then each domain; latest reads them past this process's cache.
func (r *Reader) TenantDomains(ctx context.Context, tenantID string, latest bool) ([]Domain, error) {
	var l DomainIDs
	err := r.getAt(ctx, tenantDomainsKey(tenantID), &l, "domains", latest)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]Domain, 0, len(l.IDs))
	for _, id := range l.IDs {
		get := r.DomainByID
		if latest {
			get = r.LatestDomainByID
		}
		d, err := get(ctx, id)
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue // deactivated as the list was read
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	return out, nil
}

func (r *Reader) domainList(ctx context.Context, key string, latest bool) ([]Domain, error) {
	var l DomainList
	err := r.getAt(ctx, key, &l, "domains", latest)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, nil
	}
	return l.Items, err
}
