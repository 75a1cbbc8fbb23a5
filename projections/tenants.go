package projections

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"tempmail"
	"tempmail/projections/view"
)

// Tenants and their API keys, as the views hold them (applied in
// apply_tenants.go):
//
//	tenant.<tenantID>     a tenant, with its keys and what its quota counts
//	kh.<hash>             a live key by its hash: what authenticating a request reads, in one get
//	ki.<keyID>            which tenant a key id names, and its hash
//	tl.<tenantID>         where a tenant's list of inboxes begins and ends (tenantlist.go)
//	tp.<tenantID>.<n>     a page of that list: up to tenantPageItems inboxes, newest first
//	tm.<tenantID>.<inbox> which page of the list holds an inbox, and its claim
//
// A tenant's own entries are written by the sys partition's worker, which
// applies its events in order: what it claims and what it removes of its
// inboxes are events of its own subject (events/claims.go). Each entry has
// a bounded size however many inboxes it has; what ends in another
// partition (a message deleted, a subscription ended) is counted there
// (usage.go), so that no entry has two writers.

// MaxTenantKeys caps the live keys of one tenant, enforced where a
// tenant's events are applied one at a time: a key beyond it is refused
// (its event moot).
const MaxTenantKeys = 100

// MaxTenantDomains caps a tenant's private domains (its Mailosaur servers
// among them), claimed one at a time (events.TenantDomainAdded): each is
// in the tenant's one list of domains.
const MaxTenantDomains = 1000

func tenantKey(id string) string    { return "tenant." + id }
func keyHashKey(hash string) string { return "kh." + hash }
func keyIDKey(id string) string     { return "ki." + id }

// Tenant returns a tenant by id.
func (r *Reader) Tenant(ctx context.Context, id string) (*Tenant, error) {
	var t Tenant
	if err := r.get(ctx, tenantKey(id), &t, "tenant"); err != nil {
		return nil, err
	}
	return &t, nil
}

// LatestTenant is Tenant read from the bucket itself (its leader), past
// this process's cache: what a claim is checked against.
func (r *Reader) LatestTenant(ctx context.Context, id string) (*Tenant, error) {
	var t Tenant
	if _, err := r.getLatest(ctx, tenantKey(id), &t, "tenant"); err != nil {
		return nil, err
	}
	return &t, nil
}

// Tenants returns every live tenant, oldest first: one listing of the
// tenants' entries, then a get of each (deleted tenants keep an entry,
// which says so, for a minute). For the admin's list, whose cost grows
// with the tenants.
func (r *Reader) Tenants(ctx context.Context) ([]*Tenant, error) {
	lister, err := r.kv.ListKeysFiltered(ctx, tenantKey("*"))
	if err != nil {
		return nil, view.Unavailable(err)
	}
	defer func() { _ = lister.Stop() }() // a listing that ended is stopped already
	var keys []string
	for key := range lister.Keys() {
		keys = append(keys, key)
	}
	if err := ctx.Err(); err != nil {
		return nil, view.Unavailable(err) // the listing ended early: the list is not whole
	}
	var out []*Tenant
	for _, key := range keys {
		t, err := r.Tenant(ctx, strings.TrimPrefix(key, tenantKey("")))
		switch {
		case tempmail.KindOf(err) == tempmail.NotFound:
			continue // deleted
		case err != nil:
			return nil, err
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Tenant) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// KeyByHash returns the live key whose hash (hex SHA-256) is hash: one
// get, from the bucket itself (its leader, replicated), past this
// process's cache. A revoked key, or one of a deleted tenant, is of kind
// NotFound once the views applied its end; the log refuses it from the
// moment its end is stored (events.Store.KeyRefused), which authentication
// asks too. Expiry is the caller's to judge (KeyInfo.Expired).
func (r *Reader) KeyByHash(ctx context.Context, hash string) (*Key, error) {
	var k Key
	if _, err := r.getLatest(ctx, keyHashKey(hash), &k, "key"); err != nil {
		return nil, err
	}
	return &k, nil
}

// KeyByID returns which tenant a live key id names, and the key's hash.
func (r *Reader) KeyByID(ctx context.Context, id string) (*KeyRef, error) {
	var k KeyRef
	if err := r.get(ctx, keyIDKey(id), &k, "key"); err != nil {
		return nil, err
	}
	return &k, nil
}
