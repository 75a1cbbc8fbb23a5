package projections

import (
	"slices"

	"tempmail/events"
)

// Applying tenants and their keys (tenants.go says what is where). Every
// event of a tenant's aggregate writes the tenant's entry, so that its
// sequence is the tenant subject's last, which the next command expects.

func (t *tx) tenantCreated(ev *events.TenantCreated) error {
	tn, ts, err := load[Tenant](t, tenantKey(ev.TenantID))
	if err != nil || t.applied(ts) {
		return err
	}
	*tn = Tenant{Meta: *tn.meta(), ID: ev.TenantID, Name: ev.Name, Quota: ev.Quota, CreatedAt: ev.CreatedAt}
	t.save(ts)
	return nil
}

func (t *tx) tenantChanged(ev *events.TenantChanged) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	tn.Name, tn.Quota = ev.Name, ev.Quota
	t.save(ts)
	return nil
}

// tenantDeleted ends a tenant: its keys' entries first, so that none is
// taken once the deletion is applied; its inboxes end by their own events.
func (t *tx) tenantDeleted(ev *events.TenantDeleted) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	for _, k := range tn.Keys {
		if err := t.dropKey(k); err != nil {
			return err
		}
	}
	tn.Keys, tn.Inboxes = nil, nil
	t.remove(ts)
	return nil
}

func (t *tx) keyCreated(ev *events.KeyCreated) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err // a tenant deleted meanwhile takes no key
	}
	if len(tn.Keys) >= MaxTenantKeys {
		t.moot() // nor one beyond its cap
		return nil
	}
	info := KeyInfo{ID: ev.KeyID, TenantID: ev.TenantID, Name: ev.Name, Scopes: ev.Scopes, Hash: ev.Hash,
		CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt}
	k, ks, err := load[Key](t, keyHashKey(ev.Hash))
	if err != nil {
		return err
	}
	if live(ks) && k.ID != ev.KeyID {
		t.moot() // a hash taken already: 160 random bits make it never happen
		return nil
	}
	*k = Key{Meta: *k.meta(), KeyInfo: info}
	t.save(ks)
	ref, rs, err := load[KeyRef](t, keyIDKey(ev.KeyID))
	if err != nil {
		return err
	}
	*ref = KeyRef{Meta: *ref.meta(), TenantID: ev.TenantID, Hash: ev.Hash}
	t.save(rs)
	tn.Keys = append(tn.Keys, info)
	t.save(ts)
	return nil
}

func (t *tx) keyRevoked(ev *events.KeyRevoked) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	i := slices.IndexFunc(tn.Keys, func(k KeyInfo) bool { return k.ID == ev.KeyID })
	if i >= 0 {
		if err := t.dropKey(tn.Keys[i]); err != nil {
			return err
		}
		tn.Keys = slices.Delete(tn.Keys, i, i+1)
	}
	t.save(ts) // its sequence is the subject's, revoked or not
	return nil
}

// tenantInboxAdded counts a new inbox against its tenant's quota; the
// expired ones, as of the event, stop counting and leave the entry.
func (t *tx) tenantInboxAdded(ev *events.TenantInboxAdded) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	tn.Inboxes = slices.DeleteFunc(tn.Inboxes, func(in TenantInbox) bool {
		return in.ID == ev.InboxID || !in.ExpiresAt.IsZero() && !t.at.Before(in.ExpiresAt)
	})
	tn.Inboxes = append(tn.Inboxes, TenantInbox{ID: ev.InboxID, Address: ev.Address, CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt})
	t.save(ts)
	return nil
}

func (t *tx) tenantInboxRemoved(ev *events.TenantInboxRemoved) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	tn.Inboxes = slices.DeleteFunc(tn.Inboxes, func(in TenantInbox) bool { return in.ID == ev.InboxID })
	t.save(ts)
	return nil
}

// dropKey removes a key's entries.
func (t *tx) dropKey(k KeyInfo) error {
	_, ks, err := load[Key](t, keyHashKey(k.Hash))
	if err != nil {
		return err
	}
	t.remove(ks)
	_, rs, err := load[KeyRef](t, keyIDKey(k.ID))
	if err != nil {
		return err
	}
	t.remove(rs)
	return nil
}

// ownInbox records a tenant's new inbox in its partition's list.
func (t *tx) ownInbox(tenantID, inboxID string) error {
	l, ls, err := load[TenantInboxes](t, tenantInboxesKey(tenantID, events.PartitionOf(t.subject)))
	if err != nil || t.applied(ls) {
		return err
	}
	if !live(ls) {
		l.Inboxes = nil
	}
	if !slices.Contains(l.Inboxes, inboxID) {
		l.Inboxes = append(l.Inboxes, inboxID)
	}
	t.save(ls)
	return nil
}

// disownInbox takes an ended inbox out of its tenant's list.
func (t *tx) disownInbox(tenantID, inboxID string) error {
	l, ls, err := load[TenantInboxes](t, tenantInboxesKey(tenantID, events.PartitionOf(t.subject)))
	if err != nil || !live(ls) || t.applied(ls) {
		return err
	}
	l.Inboxes = slices.DeleteFunc(l.Inboxes, func(id string) bool { return id == inboxID })
	if len(l.Inboxes) == 0 {
		t.remove(ls)
	} else {
		t.save(ls)
	}
	return nil
}

// liveTenant loads the entry of the tenant an event is of; ok is false
// when the event has nothing to do: applied already, or its tenant absent
// or deleted (the event is moot).
func (t *tx) liveTenant(id string) (tn *Tenant, ts *staged, ok bool, err error) {
	tn, ts, err = load[Tenant](t, tenantKey(id))
	if err != nil || t.applied(ts) {
		return nil, nil, false, err
	}
	if !live(ts) {
		t.moot()
		return nil, nil, false, nil
	}
	return tn, ts, true, nil
}
