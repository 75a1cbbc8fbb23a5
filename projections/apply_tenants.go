package projections

import (
	"slices"

	"tempmail/events"
	"tempmail/projections/engine"
)

// Applying tenants, their keys and what their quotas count (tenants.go
// says what is where; their devices are devices.go's). Every event of a tenant's subject writes the
// tenant's entry, so that its sequence tells a command whether the views
// have applied everything the subject holds (command reads the subject's
// last event from the log). What an event no longer needs the log to keep
// leaves it: a revoked key's creation, a tenant changed again, a claim of
// what is gone, a deleted tenant's whole subject (what the views applied
// of it with the deletion, and what comes after as it is applied, moot:
// liveTenant); an event that is moot once applied, but for being the
// subject's last, when the next comes (Tenant.Moot).

func (t *tx) tenantCreated(ev *events.TenantCreated) error {
	tn, ts, err := load[Tenant](t, tenantKey(ev.TenantID))
	if err != nil || t.Applied(ts) {
		return err
	}
	*tn = Tenant{Meta: tn.Meta, ID: ev.TenantID, Name: ev.Name, Quota: ev.Quota, CreatedAt: ev.CreatedAt}
	t.Save(ts)
	return nil
}

func (t *tx) tenantChanged(ev *events.TenantChanged) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	tn.Name, tn.Quota = ev.Name, ev.Quota
	if tn.ChangedSeq != 0 {
		t.Forget.Seqs = append(t.Forget.Seqs, tn.ChangedSeq) // what it was: superseded
	}
	tn.ChangedSeq = t.Seq
	t.Save(ts)
	return nil
}

// tenantDeleted ends a tenant: its keys' entries first, so that none is
// taken once the deletion is applied, and its devices' with their
// secrets; its inboxes end by their own events, each removed from its
// list as it does. Its subject leaves the log, as far as the views have
// applied it (its devices' creations with it): those removals, which the
// deletion writes there as it ends the inboxes, may come after, and leave
// as they are applied (moot: liveTenant, tenantInboxRemoved).
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
	tn.Keys = nil
	if err := t.dropDevices(ev.TenantID); err != nil {
		return err
	}
	if _, fs, err := load[FaultList](t, tenantFaultsKey(ev.TenantID)); err != nil {
		return err
	} else if fs.Live() {
		t.Remove(fs) // its fault rules; their events leave the log with the tenant's
	}
	t.Forget.Tenants = append(t.Forget.Tenants, ev.TenantID)
	t.Remove(ts)
	return nil
}

func (t *tx) keyCreated(ev *events.KeyCreated) error {
	info := KeyInfo{ID: ev.KeyID, TenantID: ev.TenantID, Name: ev.Name, Scopes: ev.Scopes, Hash: ev.Hash,
		CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt}
	if tn, ts, err := load[Tenant](t, tenantKey(ev.TenantID)); err != nil || t.Applied(ts) {
		// Applied again after a batch written in part: the key's entries
		// follow its tenant's (writeRank).
		if err == nil && ts.Live() && slices.ContainsFunc(tn.Keys, func(k KeyInfo) bool { return k.ID == ev.KeyID }) {
			_, err = t.keyEntries(info)
		}
		return err
	}
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err // a tenant deleted meanwhile takes no key
	}
	if len(tn.Keys) >= MaxTenantKeys {
		t.Moot() // nor one beyond its cap
		t.Save(ts)
		return nil
	}
	if taken, err := t.keyEntries(info); err != nil || taken {
		t.Save(ts)
		return err
	}
	tn.Keys = append(tn.Keys, info)
	t.Save(ts)
	return nil
}

// keyEntries writes a key's entries, by hash and by id; taken says its
// hash is another key's, and the event is moot.
func (t *tx) keyEntries(info KeyInfo) (taken bool, err error) {
	k, ks, err := load[Key](t, keyHashKey(info.Hash))
	if err != nil {
		return false, err
	}
	if ks.Live() && k.ID != info.ID {
		t.Moot() // a hash taken already: 160 random bits make it never happen
		return true, nil
	}
	if !t.Applied(ks) {
		*k = Key{Meta: k.Meta, KeyInfo: info}
		t.Save(ks)
	}
	ref, rs, err := load[KeyRef](t, keyIDKey(info.ID))
	if err != nil {
		return false, err
	}
	if !t.Applied(rs) {
		*ref = KeyRef{Meta: ref.Meta, TenantID: info.TenantID, Hash: info.Hash}
		t.Save(rs)
	}
	return false, nil
}

// keyRevoked ends a key; its creation leaves the log, and the revocation
// once a later event of the tenant comes.
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
	t.mootLater(tn)
	t.Save(ts)
	return nil
}

// keyBarred: the KeyBarred of a revocation the views apply (just before
// it, in the same batch) bars the key in the log until then; once the
// views are written, it leaves the log.
func (t *tx) keyBarred(*events.KeyBarred) error {
	t.Moot()
	return nil
}

// tenantBarred: the TenantBarred of a deletion the views apply (just
// before it, in the same batch) bars the tenant's keys in the log until
// then; once the views are written, it leaves the log.
func (t *tx) tenantBarred(*events.TenantBarred) error {
	t.Moot()
	return nil
}

// tenantInboxAdded lists a claimed inbox and counts it.
func (t *tx) tenantInboxAdded(ev *events.TenantInboxAdded) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	added, err := t.listInbox(ev.TenantID, TenantInbox{ID: ev.InboxID, Address: ev.Address, CreatedAt: ev.CreatedAt,
		ExpiresAt: ev.ExpiresAt})
	if err != nil {
		return err
	}
	if added {
		tn.Live++
	}
	t.Save(ts)
	return nil
}

// tenantInboxRemoved takes an inbox out of its tenant's list and count,
// at its deletion or expiry; its claim leaves the log. A deleted tenant's
// inboxes leave its list as they end, and the removal with them.
func (t *tx) tenantInboxRemoved(ev *events.TenantInboxRemoved) error {
	tn, ts, err := load[Tenant](t, tenantKey(ev.TenantID))
	if err != nil || t.Applied(ts) {
		return err
	}
	m, err := t.unlistInbox(ev.TenantID, ev.InboxID)
	if err != nil {
		return err
	}
	if m != nil {
		t.Forget.Claims = append(t.Forget.Claims, events.ForgetClaim{Seq: m.ClaimSeq, Type: events.TypeTenantInboxAdded, ID: ev.InboxID})
	}
	if !ts.Live() {
		t.Moot()
		return nil
	}
	if tn.Moot != 0 {
		t.Forget.Seqs = append(t.Forget.Seqs, tn.Moot)
	}
	if m != nil {
		tn.Live = max(0, tn.Live-1)
	}
	t.mootLater(tn)
	t.Save(ts)
	return nil
}

// mailClaimed counts a message its tenant's quota claimed; the claim
// leaves the log with the message.
func (t *tx) mailClaimed(ev *events.MailClaimed) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	tn.Claimed.Add(ev.Day, ev.Size)
	t.Save(ts)
	return nil
}

// webhookClaimed counts a subscription its tenant's quota claimed.
func (t *tx) webhookClaimed(ev *events.WebhookClaimed) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	tn.Claimed.Webhooks++
	t.Save(ts)
	return nil
}

// tenantDomainAdded counts a private domain (and a server) of a tenant;
// the claim leaves the log with the domain.
func (t *tx) tenantDomainAdded(ev *events.TenantDomainAdded) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	tn.Domains++
	if ev.Server {
		tn.Servers++
	}
	t.Save(ts)
	return nil
}

// tenantDomainRemoved stops counting a private domain that ended.
func (t *tx) tenantDomainRemoved(ev *events.TenantDomainRemoved) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	tn.Domains = max(0, tn.Domains-1)
	if ev.Server {
		tn.Servers = max(0, tn.Servers-1)
	}
	t.mootLater(tn)
	t.Save(ts)
	return nil
}

// mootLater marks this event as one the log keeps only while it is the
// tenant's last: it leaves the log when the next is applied.
func (t *tx) mootLater(tn *Tenant) {
	tn.Moot = t.Seq
}

// dropKey removes a key's entries; its creation leaves the log.
func (t *tx) dropKey(k KeyInfo) error {
	key, ks, err := load[Key](t, keyHashKey(k.Hash))
	if err != nil {
		return err
	}
	if ks.Live() && key.Seq != 0 {
		t.Forget.Seqs = append(t.Forget.Seqs, key.Seq)
	}
	t.Remove(ks)
	_, rs, err := load[KeyRef](t, keyIDKey(k.ID))
	if err != nil {
		return err
	}
	t.Remove(rs)
	return nil
}

// liveTenant loads the entry of the tenant an event is of; ok is false
// when the event has nothing to do: applied already, or its tenant absent
// or deleted (the event is moot). An event of a live tenant lets the
// tenant's moot event before it go (Tenant.Moot).
func (t *tx) liveTenant(id string) (tn *Tenant, ts *engine.Staged, ok bool, err error) {
	tn, ts, err = load[Tenant](t, tenantKey(id))
	if err != nil || t.Applied(ts) {
		return nil, nil, false, err
	}
	if !ts.Live() {
		t.Moot()
		return nil, nil, false, nil
	}
	if tn.Moot != 0 {
		t.Forget.Seqs = append(t.Forget.Seqs, tn.Moot)
		tn.Moot = 0
	}
	return tn, ts, true, nil
}
