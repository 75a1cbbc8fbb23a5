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

// Tenant is one tenant, its live keys, oldest first, and what its quota
// counts of it here (its mail and subscriptions end in other partitions:
// Reader.Usage sums them).
type Tenant struct {
	Meta
	ID        string       `json:"id"`
	Name      string       `json:"name"`
	Quota     events.Quota `json:"quota"`
	CreatedAt time.Time    `json:"created_at"`
	Keys      []KeyInfo    `json:"keys,omitempty"`
	// Live counts its inboxes: claimed (TenantInboxAdded) and not yet
	// removed (TenantInboxRemoved, at their deletion or expiry). One whose
	// expiry came counts until its removal, scheduled for then, is
	// applied (a second or two).
	Live int64 `json:"live,omitempty"`
	// Domains counts its private domains, Servers the Mailosaur servers
	// among them.
	Domains int64 `json:"domains,omitempty"`
	Servers int64 `json:"servers,omitempty"`
	// Claimed is what its mail and subscription claims add up to, as
	// applied (usage.go subtracts what ended since).
	Claimed Claims `json:"claimed,omitzero"`
	// ChangedSeq is its newest TenantChanged: an older one leaves the
	// log. Moot is an event applied that the log keeps only while it is
	// the subject's last.
	ChangedSeq uint64 `json:"changed_seq,omitempty"`
	Moot       uint64 `json:"moot,omitempty"`
}

// Claims are what claims add up to: bytes, messages of a day,
// subscriptions.
type Claims struct {
	Bytes    int64  `json:"bytes,omitempty"`
	Day      string `json:"day,omitempty"`      // the UTC day (2006-01-02) Messages counts
	Messages int64  `json:"messages,omitempty"` // of Day
	Webhooks int64  `json:"webhooks,omitempty"`
}

// add adds a message of size bytes received on day.
func (c *Claims) add(day string, size int64) {
	c.Bytes += size
	switch {
	case day > c.Day:
		c.Day, c.Messages = day, 1
	case day == c.Day:
		c.Messages++
	}
}

// sub takes a message of size bytes received on day away, to 0 at least.
func (c *Claims) sub(day string, size int64) {
	c.Bytes = max(0, c.Bytes-size)
	if day == c.Day {
		c.Messages = max(0, c.Messages-1)
	}
}

// today is the messages counted of the day of now.
func (c *Claims) today(now string) int64 {
	if c.Day == now {
		return c.Messages
	}
	return 0
}

// TenantInbox is an inbox as its tenant's list shows it.
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

// Key is a live key's entry, found by its hash. Its Seq is its
// KeyCreated's, which leaves the log when it is revoked.
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

func (t *Tenant) clone() record {
	c := *t
	c.Keys = slices.Clone(t.Keys)
	return &c
}
func (k *Key) clone() record    { c := *k; return &c }
func (k *KeyRef) clone() record { c := *k; return &c }

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
