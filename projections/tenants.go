package projections

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"tempmail"
	"tempmail/events"
)

// Tenants and their API keys, as the views hold them (applied in
// apply_tenants.go):
//
//	tenant.<tenantID>     a tenant, with its keys
//	kh.<hash>             a live key by its hash: what authenticating a request reads, in one get
//	ki.<keyID>            which tenant a key id names, and its hash
//	ti.<tenantID>.<part>  the live inboxes of a tenant in one partition
//
// A tenant's own entries are written by the sys partition's worker, which
// applies its events in order; the inboxes of a tenant are in each
// partition's own entry (an inbox's events are its address's partition's),
// so that no entry has two writers.

// MaxTenantKeys caps the live keys of one tenant, enforced where a
// tenant's events are applied one at a time: a key beyond it is refused
// (its event moot).
const MaxTenantKeys = 100

// Tenant is one tenant, its live keys, oldest first, and the inboxes
// that count against its quota.
type Tenant struct {
	Meta
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Quota     events.Quota  `json:"quota"`
	CreatedAt time.Time     `json:"created_at"`
	Keys      []KeyInfo     `json:"keys,omitempty"`
	Inboxes   []TenantInbox `json:"inboxes,omitempty"`
}

// TenantInbox is an inbox as its tenant's quota counts it and its list
// shows it.
type TenantInbox struct {
	ID        string    `json:"id"`
	Address   string    `json:"address"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// Live reports whether the inbox counts at now: its expiry has not come.
func (in *TenantInbox) Live(now time.Time) bool {
	return in.ExpiresAt.IsZero() || now.Before(in.ExpiresAt)
}

// LiveInboxes counts the tenant's inboxes live at now.
func (t *Tenant) LiveInboxes(now time.Time) int64 {
	n := int64(0)
	for i := range t.Inboxes {
		if t.Inboxes[i].Live(now) {
			n++
		}
	}
	return n
}

// MaxTenantInboxes bounds the live inboxes of one tenant whatever its
// quota (0 included), so that its entry stays far below the KV limit.
const MaxTenantInboxes = 5000

// InboxLimit is how many live inboxes the tenant may have.
func (t *Tenant) InboxLimit() int64 {
	if t.Quota.Inboxes <= 0 || t.Quota.Inboxes > MaxTenantInboxes {
		return MaxTenantInboxes
	}
	return t.Quota.Inboxes
}

// KeyInfo is what the views keep of an API key: never the key, its hash.
type KeyInfo struct {
	ID        string    `json:"id"`
	TenantID  string    `json:"tenant_id"`
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	Hash      string    `json:"hash"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// Expired reports whether the key's expiry has come at now.
func (k *KeyInfo) Expired(now time.Time) bool {
	return !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt)
}

// Has reports whether the key holds scope.
func (k *KeyInfo) Has(scope string) bool { return slices.Contains(k.Scopes, scope) }

// Key is a live key's entry, found by its hash.
type Key struct {
	Meta
	KeyInfo
}

// KeyRef finds a key's tenant and hash by the key's id.
type KeyRef struct {
	Meta
	TenantID string `json:"tenant_id"`
	Hash     string `json:"hash"`
}

// TenantInboxes are the live inboxes of a tenant in one partition.
type TenantInboxes struct {
	Meta
	Inboxes []string `json:"inboxes"`
}

func (t *Tenant) clone() record {
	c := *t
	c.Keys, c.Inboxes = slices.Clone(t.Keys), slices.Clone(t.Inboxes)
	return &c
}
func (k *Key) clone() record    { c := *k; return &c }
func (k *KeyRef) clone() record { c := *k; return &c }
func (l *TenantInboxes) clone() record {
	c := *l
	c.Inboxes = slices.Clone(l.Inboxes)
	return &c
}

func tenantKey(id string) string              { return "tenant." + id }
func keyHashKey(hash string) string           { return "kh." + hash }
func keyIDKey(id string) string               { return "ki." + id }
func tenantInboxesKey(id, part string) string { return "ti." + id + "." + part }

// Tenant returns a tenant by id.
func (r *Reader) Tenant(ctx context.Context, id string) (*Tenant, error) {
	var t Tenant
	if err := r.get(ctx, tenantKey(id), &t, "tenant"); err != nil {
		return nil, err
	}
	return &t, nil
}

// Tenants returns every live tenant, oldest first: one listing of the
// tenants' entries, then a get of each (deleted tenants keep an entry,
// which says so). For the admin's list, whose cost grows with the tenants
// ever made.
func (r *Reader) Tenants(ctx context.Context) ([]*Tenant, error) {
	lister, err := r.kv.ListKeysFiltered(ctx, tenantKey("*"))
	if err != nil {
		return nil, unavailable(err)
	}
	defer func() { _ = lister.Stop() }() // a listing that ended is stopped already
	var keys []string
	for key := range lister.Keys() {
		keys = append(keys, key)
	}
	if err := ctx.Err(); err != nil {
		return nil, unavailable(err) // the listing ended early: the list is not whole
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
// process's cache, which another process's revocation reaches only when
// its watcher sees it: once a revocation returns in any process, every
// process refuses the key. A revoked key, or one of a deleted tenant, is
// of kind NotFound; expiry is the caller's to judge (KeyInfo.Expired).
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

// TenantInboxes returns the ids of a tenant's live inboxes, one get per
// partition; an inbox whose expiry came but is not applied yet is among
// them (Inbox.Live says).
func (r *Reader) TenantInboxes(ctx context.Context, tenantID string) ([]string, error) {
	var ids []string
	for _, part := range r.parts {
		if part == events.SysPartition {
			continue
		}
		var l TenantInboxes
		err := r.get(ctx, tenantInboxesKey(tenantID, part), &l, "tenant's inboxes")
		switch {
		case tempmail.KindOf(err) == tempmail.NotFound:
			continue
		case err != nil:
			return nil, err
		}
		ids = append(ids, l.Inboxes...)
	}
	return ids, nil
}
