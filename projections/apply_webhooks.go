package projections

import (
	"slices"

	"tempmail/events"
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
	ref := WebhookRef{ID: ev.WebhookID, Events: ev.Events, Seq: t.seq, Claimed: ev.ClaimBack > 0}
	claimSeq := uint64(0)
	if ev.ClaimBack > 0 {
		claimSeq = t.seq - ev.ClaimBack
	}
	entry := func() error {
		w, ws, err := load[Webhook](t, webhookKey(ev.WebhookID))
		if err != nil {
			return err
		}
		*w = Webhook{Meta: *w.meta(), ID: ev.WebhookID, URL: ev.URL, Events: ev.Events, InboxID: ev.InboxID,
			Address: ev.Address, Secret: ev.Secret, CreatedAt: ev.CreatedAt, ClaimSeq: claimSeq}
		t.save(ws)
		return nil
	}
	if ev.InboxID == "" {
		l, ls, err := load[WebhookList](t, webhooksKey)
		if err != nil || t.applied(ls) {
			return err
		}
		if slices.ContainsFunc(l.Items, func(r WebhookRef) bool { return r.ID == ref.ID }) {
			return nil
		}
		if len(l.Items) >= MaxGlobalWebhooks {
			t.moot()
			return nil
		}
		if err := entry(); err != nil {
			return err
		}
		l.Items = append(l.Items, ref)
		t.save(ls)
		return nil
	}
	in, is, err := t.liveInbox(ev.InboxID)
	if err != nil || (in == nil && is == nil) {
		return err
	}
	if in == nil || len(in.Webhooks) >= MaxInboxWebhooks {
		t.moot() // an inbox that ended meanwhile takes no subscription, nor one beyond its cap
		if claimSeq != 0 && ev.TenantID != "" {
			// Its claim counts out, and leaves the log.
			t.forget.Claims = append(t.forget.Claims, events.ForgetClaim{Seq: claimSeq, Type: events.TypeWebhookClaimed, ID: ev.WebhookID})
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
	t.save(is)
	return nil
}

// webhookDeleted ends a subscription: out of its index, then its entry;
// the log forgets its events.
func (t *tx) webhookDeleted(ev *events.WebhookDeleted) error {
	isIt := func(r WebhookRef) bool { return r.ID == ev.WebhookID }
	var refs *[]WebhookRef
	var index *staged
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
		if live(is) {
			refs, index, tenantID = &in.Webhooks, is, in.TenantID
		}
	}
	w, ws, err := load[Webhook](t, webhookKey(ev.WebhookID))
	if err != nil {
		return err
	}
	if index == nil || t.applied(index) {
		return nil // its inbox ended (and took its events), or this was applied
	}
	i := slices.IndexFunc(*refs, isIt)
	if i < 0 {
		t.moot()
		return nil
	}
	t.forget.Seqs = append(t.forget.Seqs, (*refs)[i].Seq, t.seq)
	if live(ws) {
		t.forget.Seqs = append(t.forget.Seqs, w.Later...)
		t.forgetWebhookClaim(w)
	}
	claimed := (*refs)[i].Claimed
	*refs = slices.Delete(*refs, i, i+1)
	if tenantID != "" {
		if err := t.countWebhook(tenantID, -1, claimed); err != nil {
			return err
		}
	}
	t.remove(ws)
	t.save(index)
	return nil
}

// webhookSecretRotated gives a live subscription its new secret; one that
// ended meanwhile stays ended, and the event is moot. The log forgets it
// with the subscription.
func (t *tx) webhookSecretRotated(ev *events.WebhookSecretRotated) error {
	w, ws, err := load[Webhook](t, webhookKey(ev.WebhookID))
	if err != nil || t.applied(ws) {
		return err
	}
	if !live(ws) {
		t.moot()
		return nil
	}
	w.Secret = ev.Secret
	// Only the newest secret counts: the rotations before it leave the
	// log now, so that rotating in a loop grows neither the entry nor the
	// log.
	t.forget.Seqs = append(t.forget.Seqs, w.Later...)
	w.Later = []uint64{t.seq}
	t.save(ws)
	return nil
}

// forgetWebhookClaim lets a subscription's claim leave the log with it.
func (t *tx) forgetWebhookClaim(w *Webhook) {
	if w.ClaimSeq != 0 {
		t.forget.Claims = append(t.forget.Claims, events.ForgetClaim{Seq: w.ClaimSeq, Type: events.TypeWebhookClaimed, ID: w.ID})
	}
}
