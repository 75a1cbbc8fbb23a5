package projections

import (
	"slices"

	"tempmail/events"
	"tempmail/projections/engine"
)

// Applying webhook subscriptions: made (within their caps), ended, given
// a new secret.

// Caps on subscriptions, enforced here, where the events of a scope are
// applied one at a time: of racing subscriptions beyond the cap, the
// later ones are refused (their events forgotten).
const (
	MaxGlobalWebhooks = 100 // subscriptions to every inbox
	MaxInboxWebhooks  = 10  // subscriptions to one inbox
)

// webhookCreated records a subscription: its entry first, then the index
// that dispatch reads (its inbox's entry, or the list of subscriptions to
// every inbox).
func (t *tx) webhookCreated(ev *events.WebhookCreated) error {
	ref := WebhookRef{ID: ev.WebhookID, Events: ev.Events, Seq: t.Seq, Claimed: ev.ClaimBack > 0}
	claimSeq := uint64(0)
	if ev.ClaimBack > 0 {
		claimSeq = t.Seq - ev.ClaimBack
	}
	entry := func() error {
		w, ws, err := load[Webhook](t, webhookKey(ev.WebhookID))
		if err != nil {
			return err
		}
		*w = Webhook{Meta: w.Meta, ID: ev.WebhookID, URL: ev.URL, Events: ev.Events, InboxID: ev.InboxID,
			Address: ev.Address, Secret: ev.Secret, CreatedAt: ev.CreatedAt, ClaimSeq: claimSeq}
		t.Save(ws)
		return nil
	}
	if ev.InboxID == "" {
		l, ls, err := load[WebhookList](t, webhooksKey)
		if err != nil || t.Applied(ls) {
			return err
		}
		if slices.ContainsFunc(l.Items, func(r WebhookRef) bool { return r.ID == ref.ID }) {
			return nil
		}
		if len(l.Items) >= MaxGlobalWebhooks {
			t.Moot()
			return nil
		}
		if err := entry(); err != nil {
			return err
		}
		l.Items = append(l.Items, ref)
		t.Save(ls)
		return nil
	}
	in, is, err := t.liveInbox(ev.InboxID)
	if err != nil || (in == nil && is == nil) {
		return err
	}
	if in == nil || len(in.Webhooks) >= MaxInboxWebhooks {
		t.Moot() // an inbox that ended meanwhile takes no subscription, nor one beyond its cap
		if claimSeq != 0 && ev.TenantID != "" {
			// Its claim counts out, and leaves the log.
			t.Forget.Claims = append(t.Forget.Claims, events.ForgetClaim{Seq: claimSeq, Type: events.TypeWebhookClaimed, ID: ev.WebhookID})
			u, us, err := t.usage(ev.TenantID)
			if err != nil || u == nil {
				return err
			}
			u.Released.Webhooks++
			t.keep(u, us)
		}
		return nil
	}
	if slices.ContainsFunc(in.Webhooks, func(r WebhookRef) bool { return r.ID == ref.ID }) {
		return nil
	}
	if err := entry(); err != nil {
		return err
	}
	in.Webhooks = append(in.Webhooks, ref)
	if in.TenantID != "" {
		if err := t.countWebhook(in.TenantID, 1, ref.Claimed); err != nil {
			return err
		}
	}
	t.Save(is)
	return nil
}

// webhookDeleted ends a subscription: out of its index, then its entry;
// the log forgets its events.
func (t *tx) webhookDeleted(ev *events.WebhookDeleted) error {
	isIt := func(r WebhookRef) bool { return r.ID == ev.WebhookID }
	var refs *[]WebhookRef
	var index *engine.Staged
	tenantID := ""
	if ev.InboxID == "" {
		l, ls, err := load[WebhookList](t, webhooksKey)
		if err != nil {
			return err
		}
		refs, index = &l.Items, ls
	} else {
		in, is, err := load[Inbox](t, inboxKey(ev.InboxID))
		if err != nil {
			return err
		}
		if is.Live() {
			refs, index, tenantID = &in.Webhooks, is, in.TenantID
		}
	}
	w, ws, err := load[Webhook](t, webhookKey(ev.WebhookID))
	if err != nil {
		return err
	}
	if index == nil || t.Applied(index) {
		return nil // its inbox ended (and took its events), or this was applied
	}
	i := slices.IndexFunc(*refs, isIt)
	if i < 0 {
		t.Moot()
		return nil
	}
	t.Forget.Seqs = append(t.Forget.Seqs, (*refs)[i].Seq, t.Seq)
	if ws.Live() {
		t.Forget.Seqs = append(t.Forget.Seqs, w.Later...)
		t.forgetWebhookClaim(w)
	}
	claimed := (*refs)[i].Claimed
	*refs = slices.Delete(*refs, i, i+1)
	if tenantID != "" {
		if err := t.countWebhook(tenantID, -1, claimed); err != nil {
			return err
		}
	}
	t.Remove(ws)
	t.Save(index)
	return nil
}

// webhookSecretRotated gives a live subscription its new secret; one that
// ended meanwhile stays ended, and the event is moot. The log forgets it
// with the subscription.
func (t *tx) webhookSecretRotated(ev *events.WebhookSecretRotated) error {
	w, ws, err := load[Webhook](t, webhookKey(ev.WebhookID))
	if err != nil || t.Applied(ws) {
		return err
	}
	if !ws.Live() {
		t.Moot()
		return nil
	}
	w.Secret = ev.Secret
	// Only the newest secret counts: the rotations before it leave the
	// log now, so that rotating in a loop grows neither the entry nor the
	// log.
	t.Forget.Seqs = append(t.Forget.Seqs, w.Later...)
	w.Later = []uint64{t.Seq}
	t.Save(ws)
	return nil
}

// forgetWebhookClaim lets a subscription's claim leave the log with it.
func (t *tx) forgetWebhookClaim(w *Webhook) {
	if w.ClaimSeq != 0 {
		t.Forget.Claims = append(t.Forget.Claims, events.ForgetClaim{Seq: w.ClaimSeq, Type: events.TypeWebhookClaimed, ID: w.ID})
	}
}
