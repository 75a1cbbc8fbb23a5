package events

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"

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

// KeyRevoked ends a key. It names its tenant, whose subject records it,
// and the key's hash, which a KeyBarred of the same revocation bars.
type KeyRevoked struct {
	KeyID    string `json:"key_id"`
	TenantID string `json:"tenant_id"`
	Hash     string `json:"hash,omitempty"` // empty in a revocation recorded before keys were barred
}

// KeyBarred bars a revoked key, on a subject of its own (barredSubject):
// authentication reads it in the log, so that a key is refused once its
// revocation is stored, whatever the views have applied yet. It is
// stored in one atomic batch with the KeyRevoked, and leaves the log once
// the views have applied the revocation.
type KeyBarred struct {
	KeyID    string `json:"key_id"`
	TenantID string `json:"tenant_id"`
	Hash     string `json:"hash"`
}

func (KeyBarred) EventType() Type { return TypeKeyBarred }

// TenantBarred bars a deleted tenant's keys, on a subject of its own
// (tenantBarredSubject), as KeyBarred bars one key: the tenant's own
// subject cannot say it once the deletion is stored, for the removals of
// its inboxes (scheduled at their expiry, or written as the deletion ends
// them) come after it there. It is stored in one atomic batch with the
// TenantDeleted, and leaves the log once the views have applied it.
type TenantBarred struct {
	TenantID string `json:"tenant_id"`
}

func (TenantBarred) EventType() Type { return TypeTenantBarred }

// TenantInboxAdded counts a new inbox of a tenant against its quota. It is
// stored in one atomic batch with the inbox's InboxCreated, expecting the
// tenant's last event as the views show it: of racing creations at the
// quota, the stream takes one at a time, each made from a count that
// holds every other (CreateTenantInbox).
type TenantInboxAdded struct {
	TenantID  string    `json:"tenant_id"`
	InboxID   string    `json:"inbox_id"`
	Address   string    `json:"address"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at,omitzero"` // it stops counting then; zero: never
}

// TenantInboxRemoved stops counting an inbox that was deleted before its
// expiry (stored with its InboxDeleted).
type TenantInboxRemoved struct {
	TenantID string `json:"tenant_id"`
	InboxID  string `json:"inbox_id"`
}

func (TenantInboxAdded) EventType() Type   { return TypeTenantInboxAdded }
func (TenantInboxRemoved) EventType() Type { return TypeTenantInboxRemoved }

func (TenantCreated) EventType() Type { return TypeTenantCreated }
func (TenantChanged) EventType() Type { return TypeTenantChanged }
func (TenantDeleted) EventType() Type { return TypeTenantDeleted }
func (KeyCreated) EventType() Type    { return TypeKeyCreated }
func (KeyRevoked) EventType() Type    { return TypeKeyRevoked }

// TenantOf names the tenant an event of a tenant's aggregate is about.
func TenantOf(p Payload) string {
	switch ev := p.(type) {
	case *MailClaimed:
		return ev.TenantID
	case *WebhookClaimed:
		return ev.TenantID
	case *TenantDomainAdded:
		return ev.TenantID
	case *TenantDomainRemoved:
		return ev.TenantID
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
	case TenantInboxAdded:
		return ev.TenantID
	case *TenantInboxAdded:
		return ev.TenantID
	case TenantInboxRemoved:
		return ev.TenantID
	case *TenantInboxRemoved:
		return ev.TenantID
	case DeviceCreated:
		return ev.TenantID
	case *DeviceCreated:
		return ev.TenantID
	case DeviceDeleted:
		return ev.TenantID
	case *DeviceDeleted:
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

// TenantInboxEvents are the events CreateTenantInbox stores for ev (the
// tenant's count, then the inbox), without their expectations: for a tool
// that writes a store of a known shape alone, in order, as fast as the
// stream takes it (tmbench's tenant of 1,000,000 inboxes).
func (s *Store) TenantInboxEvents(ev InboxCreated) ([]*nats.Msg, error) {
	counted, err := eventMsg(tenantSubject(ev.TenantID), TenantInboxAdded{TenantID: ev.TenantID, InboxID: ev.InboxID,
		Address: ev.Address, CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt})
	if err != nil {
		return nil, err
	}
	created, err := eventMsg(inboxSubject(s.PartitionOfAddress(ev.Address), ev.Address), ev)
	if err != nil {
		return nil, err
	}
	return []*nats.Msg{counted, created}, nil
}

// CreateTenantInbox is CreateInbox for an inbox of a tenant: its
// InboxCreated and a TenantInboxAdded stored as one atomic batch, the
// first expecting the address's lifecycle subject at lastLifecycleSeq, the
// second the tenant's subject at tenantSeq. Either both are stored or
// neither; when either subject moved on, the error is of kind Conflict
// (the address taken, or the tenant changed, another inbox of its counted
// first among them): the caller reads both again.
//
// An inbox that expires stops counting when it does: with its InboxExpired,
// its TenantInboxRemoved is scheduled on the tenant's subject
// (scheduleRemoval).
func (s *Store) CreateTenantInbox(ctx context.Context, ev InboxCreated, lastLifecycleSeq, tenantSeq uint64) ([]Ack, error) {
	part := s.PartitionOfAddress(ev.Address)
	lifecycle := inboxSubject(part, ev.Address)
	withdraw, err := s.scheduleExpiry(ctx, part, ev)
	if err != nil {
		return nil, err
	}
	removal, err := s.scheduleRemoval(ctx, ev.TenantID, ev.InboxID, ev.ExpiresAt)
	if err != nil {
		s.withdraw(withdraw...)
		return nil, err
	}
	withdraw = append(withdraw, removal...)
	created, err := eventMsg(lifecycle, ev)
	if err != nil {
		return nil, err
	}
	expect(withID(created, "inbox-"+ev.InboxID), lifecycle, lastLifecycleSeq)
	tenant := tenantSubject(ev.TenantID)
	counted, err := eventMsg(tenant, TenantInboxAdded{TenantID: ev.TenantID, InboxID: ev.InboxID, Address: ev.Address,
		CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt})
	if err != nil {
		return nil, err
	}
	expect(withID(counted, "tenant-inbox-"+ev.InboxID), tenant, tenantSeq)
	batch := []*nats.Msg{counted, created}
	acks, err := s.publishBatch(ctx, batch)
	if broker.WrongLastSeq(err) {
		// As CreateInbox: the views may name an address history the log
		// no longer holds.
		if seq, free := s.lifecycleFree(ctx, lifecycle); free && seq != lastLifecycleSeq {
			expect(created, lifecycle, seq)
			acks, err = s.publishBatch(ctx, batch)
		}
	}
	if err != nil && !IsUnknownOutcome(err) {
		s.withdraw(withdraw...)
	}
	switch {
	case broker.WrongLastSeq(err):
		return nil, tempmail.Wrap(tempmail.Conflict, err, "address already taken, or the tenant changed")
	case errors.Is(err, errBatchDuplicate):
		return nil, unknown(err) // an earlier try of this very batch was stored
	}
	return acks, err
}

// EndTenantInbox is EndInbox for an inbox of a tenant: its InboxDeleted
// and a TenantInboxRemoved, as one atomic batch, so that the inbox stops
// counting against the quota as it ends.
func (s *Store) EndTenantInbox(ctx context.Context, addr, tenantID string, p *InboxDeleted, lifecycleSeq uint64) ([]Ack, error) {
	subj := inboxSubject(s.PartitionOfAddress(addr), addr)
	ended, err := eventMsg(subj, p)
	if err != nil {
		return nil, err
	}
	expect(withID(ended, ""), subj, lifecycleSeq)
	removed, err := eventMsg(tenantSubject(tenantID), TenantInboxRemoved{TenantID: tenantID, InboxID: p.InboxID})
	if err != nil {
		return nil, err
	}
	acks, err := s.publishBatch(ctx, []*nats.Msg{ended, withID(removed, "")})
	if broker.WrongLastSeq(err) {
		return nil, tempmail.Wrap(tempmail.NotFound, err, "inbox not found")
	}
	if err == nil {
		// Its removal at expiry is moot now; should it fire all the same,
		// the views find the inbox no longer counted.
		s.withdraw(removalSchedule(tenantID, p.InboxID))
	}
	return acks, err
}
