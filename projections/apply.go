package projections

import (
	"context"
	"fmt"
	"slices"

	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections/engine"
	"tempmail/projections/view"
)

// applier is the views' part of one batch (engine.Applier): what applying
// its events may ask, and the outbound webhooks they call for.
type applier struct {
	rules Rules
	// deliveries are the outbound webhooks the batch's events call for;
	// globals reads the subscriptions to every inbox (nil: a rebuild,
	// which calls for none), and outbox takes the deliveries.
	deliveries []Delivery
	globals    func(context.Context) ([]WebhookRef, error)
	outbox     Outbox
	// inboxLive asks the log whether an inbox whose entry is missing is
	// live all the same (events.Store.InboxLive); nil: a rebuild, whose
	// views hold every entry they wrote.
	inboxLive func(ctx context.Context, addr, inboxID string) (bool, error)
}

// tx is the application of one event within a batch, as the views apply
// it: the engine's (its sequence, the entries it loads, what the log is to
// forget) and the batch's applier.
type tx struct {
	*engine.Tx
	*applier
}

// load returns the batch's record of key (engine.Load).
func load[R any, P interface {
	*R
	view.Record
}](t *tx, key string) (P, *engine.Staged, error) {
	return engine.Load[R, P](t.Tx, key)
}

// Dispatch hands the deliveries the batch's events call for to the outbox.
func (a *applier) Dispatch(ctx context.Context) error {
	if len(a.deliveries) == 0 {
		return nil
	}
	return a.outbox.Enqueue(ctx, a.deliveries)
}

// Apply applies one event to the batch.
// Writes are ordered when the batch is written (Rank), not here; the
// sequence check on every entry makes a repeated or resumed application
// harmless.
func (a *applier) Apply(et *engine.Tx, p events.Payload) error {
	t := &tx{Tx: et, applier: a}
	switch ev := p.(type) {
	case *events.DomainAdded:
		return t.domainAdded(ev)
	case *events.DomainDeactivated:
		return t.domainDeactivated(ev)
	case *events.InboxCreated:
		return t.inboxCreated(ev)
	case *events.InboxDeleted:
		return t.lifecycleEnded(ev.InboxID, ev.Address, mailbox.HookInboxDeleted)
	case *events.InboxExpired:
		return t.lifecycleEnded(ev.InboxID, ev.Address, mailbox.HookInboxExpired)
	case *events.MailReceived:
		return t.mailReceived(ev)
	case *events.MarkedRead:
		return t.markedRead(ev)
	case *events.Deleted:
		return t.deleted(ev)
	case *events.WebhookCreated:
		return t.webhookCreated(ev)
	case *events.WebhookDeleted:
		return t.webhookDeleted(ev)
	case *events.WebhookSecretRotated:
		return t.webhookSecretRotated(ev)
	case *events.TenantCreated:
		return t.tenantCreated(ev)
	case *events.TenantChanged:
		return t.tenantChanged(ev)
	case *events.TenantDeleted:
		return t.tenantDeleted(ev)
	case *events.KeyCreated:
		return t.keyCreated(ev)
	case *events.KeyRevoked:
		return t.keyRevoked(ev)
	case *events.TenantInboxAdded:
		return t.tenantInboxAdded(ev)
	case *events.TenantInboxRemoved:
		return t.tenantInboxRemoved(ev)
	case *events.MailClaimed:
		return t.mailClaimed(ev)
	case *events.WebhookClaimed:
		return t.webhookClaimed(ev)
	case *events.TenantDomainAdded:
		return t.tenantDomainAdded(ev)
	case *events.TenantDomainRemoved:
		return t.tenantDomainRemoved(ev)
	case *events.TenantBarred:
		return t.tenantBarred(ev)
	case *events.KeyBarred:
		return t.keyBarred(ev)
	case *events.DeviceCreated:
		return t.deviceCreated(ev)
	case *events.DeviceDeleted:
		return t.deviceDeleted(ev)
	case *events.FaultAdded:
		return t.faultAdded(ev)
	case *events.FaultDeleted:
		return t.faultDeleted(ev)
	case *events.Attempted:
		return t.attempted(ev)
	}
	return fmt.Errorf("%w: %s", engine.ErrNoView, p.EventType())
}

func (t *tx) inboxCreated(ev *events.InboxCreated) error {
	in, is, err := load[Inbox](t, inboxKey(ev.InboxID))
	if err != nil {
		return err
	}
	if !t.Applied(is) {
		*in = Inbox{Meta: in.Meta, ID: ev.InboxID, Address: ev.Address, Token: ev.Token, Retention: ev.Retention,
			DomainID: ev.DomainID, CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt, TTL: ev.TTL, LifecycleSeq: t.Seq,
			TenantID: ev.TenantID, PasswordHash: ev.PasswordHash}
		t.Save(is)
	}
	tok, ts, err := load[TokenRef](t, tokenKey(ev.Token))
	if err != nil {
		return err
	}
	if !t.Applied(ts) {
		*tok = TokenRef{Meta: tok.Meta, InboxID: ev.InboxID}
		t.Save(ts)
	}
	if tag := events.InboxTag(ev.InboxID); tag != "" {
		ref, rs, err := load[TagRef](t, tagKey(tag))
		if err != nil {
			return err
		}
		if !t.Applied(rs) {
			if !rs.Live() {
				ref.Inboxes = nil
			}
			if !slices.Contains(ref.Inboxes, ev.InboxID) {
				ref.Inboxes = append(ref.Inboxes, ev.InboxID)
			}
			t.Save(rs)
		}
	}
	a, as, err := load[Address](t, addressKey(ev.Address))
	if err != nil {
		return err
	}
	if !t.Applied(as) {
		*a = Address{Meta: a.Meta, InboxID: ev.InboxID, Live: true, LifecycleSeq: t.Seq}
		t.Save(as)
	}
	return nil
}

// lifecycleEnded applies an InboxDeleted or InboxExpired. Usually it ends
// the address's live inbox. A scheduled expiry can also fire for an inbox
// that was deleted already: then it ends nothing, but when it lands after a
// newer inbox's creation it is now the last event on the address's
// lifecycle subject, so the address and its live inbox must expect it.
// Either way the log forgets the inbox's events (events.ForgetInbox).
func (t *tx) lifecycleEnded(inboxID, addr, kind string) error {
	a, as, err := load[Address](t, addressKey(addr))
	if err != nil {
		return err
	}
	// Applying again an ending that was written in part: the address,
	// written last, already records it.
	resumed := t.Applied(as) && (a.Gone || a.InboxID == inboxID)
	ended := (a.InboxID == inboxID && as.Live() && a.Live) || resumed
	t.Forget.Inboxes = append(t.Forget.Inboxes, events.ForgetInbox{ID: inboxID, Address: addr, Seq: t.Seq, Ended: ended})
	if ended {
		return t.inboxEnded(inboxID, kind, as)
	}
	if as.Live() && a.Live {
		in, is, err := load[Inbox](t, inboxKey(a.InboxID))
		if err != nil {
			return err
		}
		if is.Live() && !t.Applied(is) {
			in.LifecycleSeq = t.Seq
			t.Save(is)
		}
	}
	if !t.Applied(as) {
		a.LifecycleSeq = t.Seq
		t.Save(as)
	}
	return nil
}

// inboxEnded removes an inbox with its list pages, token, tag and
// subscriptions; the inbox and its address go last, as the index that
// finds the rest if this is applied again.
func (t *tx) inboxEnded(inboxID, kind string, as *engine.Staged) error {
	in, is, err := load[Inbox](t, inboxKey(inboxID))
	if err != nil {
		return err
	}
	if is.Live() && !t.Applied(is) {
		if err := t.tell(in, kind, nil, ""); err != nil {
			return err
		}
		for _, ref := range in.Pages {
			_, ps, err := load[Page](t, pageKey(inboxID, ref.N))
			if err != nil {
				return err
			}
			t.Remove(ps)
		}
		if err := t.unindexLegacy(in.ID, in.Head); err != nil {
			return err
		}
		for _, ref := range in.Webhooks {
			w, ws, err := load[Webhook](t, webhookKey(ref.ID))
			if err != nil {
				return err
			}
			if ws.Live() {
				t.forgetWebhookClaim(w)
			}
			t.Remove(ws)
		}
		_, ts, err := load[TokenRef](t, tokenKey(in.Token))
		if err != nil {
			return err
		}
		t.Remove(ts)
		if err := t.untag(in.ID); err != nil {
			return err
		}
		if in.TenantID != "" {
			// Its mail and subscriptions stop counting: the claimed ones
			// as released, here (usage.go).
			if err := t.inboxGone(in); err != nil {
				return err
			}
		}
		t.Remove(is)
	}
	// The address is free again, and its history leaves the log: a claim
	// expects nothing on its lifecycle subject, as for an address never
	// used.
	t.Remove(as)
	return nil
}

// untag takes an ended inbox out of its tag's entry.
func (t *tx) untag(inboxID string) error {
	tag := events.InboxTag(inboxID)
	if tag == "" {
		return nil
	}
	ref, rs, err := load[TagRef](t, tagKey(tag))
	if err != nil || !rs.Live() || t.Applied(rs) {
		return err
	}
	ref.Inboxes = slices.DeleteFunc(ref.Inboxes, func(id string) bool { return id == inboxID })
	if len(ref.Inboxes) == 0 {
		t.Remove(rs)
	} else {
		t.Save(rs)
	}
	return nil
}

// legacy reports a message whose id does not carry its inbox's tag (one
// received before ids did): only a MessageRef finds it by id.
func legacy(inboxID, messageID string) bool {
	return events.InboxTag(messageID) != events.InboxTag(inboxID)
}

// unindexLegacy removes the MessageRefs of the legacy messages among list.
func (t *tx) unindexLegacy(inboxID string, list []Summary) error {
	for i := range list {
		if !legacy(inboxID, list[i].ID) {
			continue
		}
		_, ms, err := load[MessageRef](t, messageRefKey(list[i].ID))
		if err != nil {
			return err
		}
		t.Remove(ms)
	}
	return nil
}

// liveInbox loads an inbox for an event about its mail: nil when it has
// ended (the event is then moot) or already reflects the event.
func (t *tx) liveInbox(id string) (*Inbox, *engine.Staged, error) {
	in, is, err := load[Inbox](t, inboxKey(id))
	if err != nil || t.Applied(is) {
		return nil, nil, err
	}
	if !is.Live() {
		return nil, is, nil
	}
	return in, is, nil
}
