package entry

import (
	"slices"
	"time"

	"tempmail/events"
	"tempmail/projections/view"
)

// Tenant is one tenant, its live keys, oldest first, and what its quota
// counts of it here (its mail and subscriptions end in other partitions:
// Reader.Usage sums them).
type Tenant struct {
	view.Meta
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
	// applied (projections/usage.go subtracts what ended since).
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

// Add adds a message of size bytes received on day.
func (c *Claims) Add(day string, size int64) {
	c.Bytes += size
	switch {
	case day > c.Day:
		c.Day, c.Messages = day, 1
	case day == c.Day:
		c.Messages++
	}
}

// Sub takes a message of size bytes received on day away, to 0 at least.
func (c *Claims) Sub(day string, size int64) {
	c.Bytes = max(0, c.Bytes-size)
	if day == c.Day {
		c.Messages = max(0, c.Messages-1)
	}
}

// Today is the messages counted of the day of now.
func (c *Claims) Today(now string) int64 {
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
	view.Meta
	KeyInfo
}

// KeyRef finds a key's tenant and hash by the key's id.
type KeyRef struct {
	view.Meta
	TenantID string `json:"tenant_id"`
	Hash     string `json:"hash"`
}

func (t *Tenant) Clone() view.Record {
	c := *t
	c.Keys = slices.Clone(t.Keys)
	return &c
}
func (k *Key) Clone() view.Record    { c := *k; return &c }
func (k *KeyRef) Clone() view.Record { c := *k; return &c }

// AddDay adds n messages of day to what c counts of a day.
func (c *Claims) AddDay(day string, n int64) {
	switch {
	case day > c.Day:
		c.Day, c.Messages = day, n
	case day == c.Day:
		c.Messages += n
	}
}
