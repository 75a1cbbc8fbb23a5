package events

import (
	"context"
	"time"

	"tempmail"
	"tempmail/broker"
)

// A tenant's virtual security devices (the Mailosaur family's devices):
// each is a name and the shared secret of an authenticator app, whose
// current code the API computes. They are events of the tenant's
// aggregate, on its subject (tenantSubject), so that the tenant's cap on
// them is claimed as every quota is (claims.go): a creation expects the
// tenant's last event, and the views hold the count at that event, so of
// racing creations at the cap the stream takes one at a time and none
// passes it. The creation is its own claim: what it claims lives on the
// subject it is stored on. The secret leaves the log with the device (its
// creation is deleted by sequence once the views apply its deletion) and
// with its tenant (whose subject is purged).

// DeviceCreated records a device of a tenant. The secret is part of the
// event, as a subscription's is, so that a rebuild restores the device
// whole; it is the key an app is given in base32, decoded.
type DeviceCreated struct {
	TenantID  string    `json:"tenant_id"`
	DeviceID  string    `json:"device_id"` // a UUID: the SDK asks a device by an id with a '-'
	Name      string    `json:"name"`
	Secret    []byte    `json:"secret"`
	CreatedAt time.Time `json:"created_at"`
}

// DeviceDeleted ends a device: its creation, secret included, leaves the
// log once the views have applied it.
type DeviceDeleted struct {
	TenantID string `json:"tenant_id"`
	DeviceID string `json:"device_id"`
}

func (DeviceCreated) EventType() Type { return TypeDeviceCreated }
func (DeviceDeleted) EventType() Type { return TypeDeviceDeleted }

// CreateDevice records ev on its tenant's subject, expecting the subject
// at tenantSeq (the tenant as the views show it, with its count of
// devices). A subject that moved on (another change of the tenant first)
// is of kind Conflict: the caller reads the tenant again. A retry of the
// same creation is recognised by the device's id.
func (s *Store) CreateDevice(ctx context.Context, ev DeviceCreated, tenantSeq uint64) (Ack, error) {
	subj := tenantSubject(ev.TenantID)
	m, err := eventMsg(subj, ev)
	if err != nil {
		return Ack{}, err
	}
	expect(withID(m, "device-"+ev.DeviceID), subj, tenantSeq)
	ack, err := s.publish(ctx, m)
	if broker.WrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "the tenant changed concurrently")
	}
	return ack, err
}

// DeleteDevice records a device's deletion on its tenant's subject. It
// expects nothing, as a key's revocation does: the views take a deletion
// of a device they do not hold (deleted already, or of a tenant deleted
// meanwhile) for what it is. Recorded once per device within the dedupe
// window.
func (s *Store) DeleteDevice(ctx context.Context, ev DeviceDeleted) (Ack, error) {
	m, err := eventMsg(tenantSubject(ev.TenantID), ev)
	if err != nil {
		return Ack{}, err
	}
	return s.publish(ctx, withID(m, "device-deleted-"+ev.DeviceID))
}
