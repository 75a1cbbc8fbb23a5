package events

import (
	"context"
	"time"

	"tempmail"
	"tempmail/broker"
)

// Tenants and their API keys. A tenant is one aggregate: its creation,
// changes and deletion and its keys' creation and revocation are all
// recorded on its own subject (tenantSubject), each expecting the
// subject's last sequence as the views show it, so that the stream decides
// every race about one tenant (a key made while the tenant is deleted, two
// changes made from the same knowledge). The subjects live in the sys
// partition, whose one worker applies them in order.

// Quota bounds what a tenant may hold; 0 means unlimited.
type Quota struct {
	Inboxes        int64 `json:"inboxes"`
	MessagesPerDay int64 `json:"messages_per_day"`
	StorageBytes   int64 `json:"storage_bytes"`
	Webhooks       int64 `json:"webhooks"`
}

// TenantCreated records a new tenant.
type TenantCreated struct {
	TenantID  string    `json:"tenant_id"`
	Name      string    `json:"name"`
	Quota     Quota     `json:"quota"`
	CreatedAt time.Time `json:"created_at"`
}

// TenantChanged gives a tenant a new name and quota (both whole: the
// command fills in what a request left unchanged).
type TenantChanged struct {
	TenantID string `json:"tenant_id"`
	Name     string `json:"name"`
	Quota    Quota  `json:"quota"`
}

// TenantDeleted ends a tenant: its keys are refused from then on; its
// inboxes are ended by InboxDeleted events of their own.
type TenantDeleted struct {
	TenantID string `json:"tenant_id"`
}

// KeyCreated records an API key of a tenant. Only the key's SHA-256 hash
// is recorded: the key itself is shown once, to whoever made it.
type KeyCreated struct {
	KeyID     string    `json:"key_id"`
	TenantID  string    `json:"tenant_id"`
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	Hash      string    `json:"hash"` // hex SHA-256 of the key
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at,omitzero"` // zero: never
}

// KeyRevoked ends a key. It names its tenant, whose subject records it.
type KeyRevoked struct {
	KeyID    string `json:"key_id"`
	TenantID string `json:"tenant_id"`
}

func (TenantCreated) EventType() Type { return TypeTenantCreated }
func (TenantChanged) EventType() Type { return TypeTenantChanged }
func (TenantDeleted) EventType() Type { return TypeTenantDeleted }
func (KeyCreated) EventType() Type    { return TypeKeyCreated }
func (KeyRevoked) EventType() Type    { return TypeKeyRevoked }

// TenantOf names the tenant an event of a tenant's aggregate is about.
func TenantOf(p Payload) string {
	switch ev := p.(type) {
	case TenantCreated:
		return ev.TenantID
	case *TenantCreated:
		return ev.TenantID
	case TenantChanged:
		return ev.TenantID
	case *TenantChanged:
		return ev.TenantID
	case TenantDeleted:
		return ev.TenantID
	case *TenantDeleted:
		return ev.TenantID
	case KeyCreated:
		return ev.TenantID
	case *KeyCreated:
		return ev.TenantID
	case KeyRevoked:
		return ev.TenantID
	case *KeyRevoked:
		return ev.TenantID
	}
	return ""
}

// AppendTenantEvent publishes an event of a tenant's aggregate, expecting
// the tenant's subject to be at expectSeq (0: the tenant is new). If it is
// not (another change came first), the error is of kind Conflict.
func (s *Store) AppendTenantEvent(ctx context.Context, p Payload, expectSeq uint64) (Ack, error) {
	id := TenantOf(p)
	if id == "" {
		return Ack{}, tempmail.Errorf(tempmail.Internal, "a tenant event without its tenant")
	}
	subj := tenantSubject(id)
	m, err := eventMsg(subj, p)
	if err != nil {
		return Ack{}, err
	}
	expect(withID(m, ""), subj, expectSeq)
	ack, err := s.publish(ctx, m)
	if broker.WrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "the tenant changed concurrently")
	}
	return ack, err
}
