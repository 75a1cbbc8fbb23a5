package projections

import (
	"context"
	"slices"
	"strconv"

	"tempmail"
	"tempmail/projections/engine"
	"tempmail/projections/view"
)

// A tenant's list of inboxes: pages of at most tenantPageItems, newest
// first, each linked to the next older and newer, and an entry that says
// where the list begins and ends (tl.<tenant>). An inbox goes into the
// newest page when it is claimed, and leaves its page (found by its
// member entry, tm.<tenant>.<inbox>) when it is removed; a page left empty
// is unlinked. So adding or removing an inbox writes three
// entries at most, and reading the list reads a page per tenantPageItems
// inboxes, whatever the tenant holds. The list outlives its tenant's
// deletion until its inboxes are removed, so that the deletion can find
// them.

// tenantPageItems is the most inboxes one page holds.
const tenantPageItems = 128

func tenantListKey(tenant string) string { return "tl." + tenant }
func tenantPageKey(tenant string, n int64) string {
	return "tp." + tenant + "." + strconv.FormatInt(n, 10)
}
func tenantMemberKey(tenant, inbox string) string { return "tm." + tenant + "." + inbox }

// listInbox puts a claimed inbox at the head of its tenant's list; false
// when it is there already.
func (t *tx) listInbox(tenant string, in TenantInbox) (bool, error) {
	m, ms, err := load[TenantMember](t, tenantMemberKey(tenant, in.ID))
	if err != nil || ms.Live() {
		return false, err
	}
	l, ls, err := load[TenantList](t, tenantListKey(tenant))
	if err != nil {
		return false, err
	}
	if !ls.Live() {
		*l = TenantList{Meta: l.Meta, Next: 1}
	}
	var pg *TenantPage
	var ps *engine.Staged
	if l.Newest != 0 {
		if pg, ps, err = load[TenantPage](t, tenantPageKey(tenant, l.Newest)); err != nil {
			return false, err
		}
	}
	if pg == nil || !ps.Live() || len(pg.Items) >= tenantPageItems {
		n := l.Next
		l.Next++
		if pg != nil && ps.Live() {
			pg.Newer = n
			t.Save(ps)
		}
		older := l.Newest
		if pg, ps, err = load[TenantPage](t, tenantPageKey(tenant, n)); err != nil {
			return false, err
		}
		*pg = TenantPage{Meta: pg.Meta, Older: older}
		l.Newest = n
		if l.Oldest == 0 {
			l.Oldest = n
		}
	}
	pg.Items = slices.Insert(pg.Items, 0, in)
	t.Save(ps)
	t.Save(ls)
	*m = TenantMember{Meta: m.Meta, Page: l.Newest, ClaimSeq: t.Seq}
	t.Save(ms)
	return true, nil
}

// unlistInbox takes an inbox out of its tenant's list, and returns its
// member entry as it was (nil when it was not listed).
func (t *tx) unlistInbox(tenant, inbox string) (*TenantMember, error) {
	m, ms, err := load[TenantMember](t, tenantMemberKey(tenant, inbox))
	if err != nil || !ms.Live() {
		return nil, err
	}
	was := *m
	t.Remove(ms)
	pg, ps, err := load[TenantPage](t, tenantPageKey(tenant, was.Page))
	if err != nil || !ps.Live() {
		return &was, err
	}
	pg.Items = slices.DeleteFunc(pg.Items, func(x TenantInbox) bool { return x.ID == inbox })
	if len(pg.Items) > 0 {
		t.Save(ps)
		return &was, nil
	}
	l, ls, err := load[TenantList](t, tenantListKey(tenant))
	if err != nil {
		return nil, err
	}
	// An empty page leaves the chain: its neighbours point past it.
	for _, n := range []struct {
		page int64
		set  func(*TenantPage)
	}{
		{pg.Older, func(o *TenantPage) { o.Newer = pg.Newer }},
		{pg.Newer, func(o *TenantPage) { o.Older = pg.Older }},
	} {
		if n.page == 0 {
			continue
		}
		o, os, err := load[TenantPage](t, tenantPageKey(tenant, n.page))
		if err != nil {
			return nil, err
		}
		if os.Live() {
			n.set(o)
			t.Save(os)
		}
	}
	t.Remove(ps)
	if ls.Live() {
		if l.Oldest == was.Page {
			l.Oldest = pg.Newer
		}
		if l.Newest == was.Page {
			l.Newest = pg.Older
		}
		if l.Newest == 0 {
			t.Remove(ls) // nothing left
		} else {
			t.Save(ls)
		}
	}
	return &was, nil
}

// TenantInboxes calls visit with a tenant's inboxes, newest first, until
// it returns false; it reads a page at a time. An inbox whose expiry came
// but whose removal is not applied yet is among them (TenantInbox.Live
// says). A deleted tenant's inboxes are listed until each is ended.
func (r *Reader) TenantInboxes(ctx context.Context, tenant string, visit func(TenantInbox) bool) error {
	var l TenantList
	err := r.get(ctx, tenantListKey(tenant), &l, "tenant's inboxes")
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil
	}
	if err != nil {
		return err
	}
	for n := l.Newest; n != 0; {
		var pg TenantPage
		err := r.get(ctx, tenantPageKey(tenant, n), &pg, "page of a tenant's inboxes")
		if tempmail.KindOf(err) == tempmail.NotFound {
			return nil // unlinked as it was read
		}
		if err != nil {
			return err
		}
		for _, in := range pg.Items {
			if !visit(in) {
				return nil
			}
		}
		n = pg.Older
	}
	return nil
}

// TenantInboxesTopics change when an inbox joins tenant's list: it goes
// into the newest page, or into a new one that the list's head entry then
// names, so one of the two entries is written.
func (r *Reader) TenantInboxesTopics(ctx context.Context, tenant string) ([]Topic, error) {
	var l TenantList
	err := r.get(ctx, tenantListKey(tenant), &l, "tenant's inboxes")
	if err != nil && tempmail.KindOf(err) != tempmail.NotFound {
		return nil, err
	}
	return []Topic{view.EntryTopic(tenantListKey(tenant)), view.EntryTopic(tenantPageKey(tenant, l.Newest))}, nil
}
