package projections

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"tempmail/events"
)

// apply applies one event, at seq on subject, stored at at, to the batch.
// Writes are ordered when the batch is written (writeRank), not here; the
// sequence check on every entry makes a repeated or resumed application
// harmless.
func (b *batch) apply(seq uint64, subject string, at time.Time, p events.Payload) error {
	t := b.tx(seq, subject, at)
	switch ev := p.(type) {
	case *events.DomainAdded:
		return t.domainAdded(ev)
	case *events.DomainDeactivated:
		return t.domainDeactivated(ev)
	case *events.InboxCreated:
		return t.inboxCreated(ev)
	case *events.InboxDeleted:
		return t.lifecycleEnded(ev.InboxID, ev.Address, events.HookInboxDeleted)
	case *events.InboxExpired:
		return t.lifecycleEnded(ev.InboxID, ev.Address, events.HookInboxExpired)
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
	case *events.KeyBarred:
		return t.keyBarred(ev)
	}
	return fmt.Errorf("%w: %s", errNoView, p.EventType())
}

// errNoView: an event of a type no view handles, which this build decodes
// (an event an earlier build no longer writes, say). A rebuild sets it
// aside, as the workers do.
var errNoView = errors.New("projections: no view handles the event")

func (t *tx) inboxCreated(ev *events.InboxCreated) error {
	in, is, err := load[Inbox](t, inboxKey(ev.InboxID))
	if err != nil {
		return err
	}
	if !t.applied(is) {
		*in = Inbox{Meta: *in.meta(), ID: ev.InboxID, Address: ev.Address, Token: ev.Token, Family: ev.Family,
			DomainID: ev.DomainID, CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt, TTL: ev.TTL, LifecycleSeq: t.seq,
			TenantID: ev.TenantID, PasswordHash: ev.PasswordHash}
		t.save(is)
	}
	tok, ts, err := load[TokenRef](t, tokenKey(ev.Token))
	if err != nil {
		return err
	}
	if !t.applied(ts) {
		*tok = TokenRef{Meta: *tok.meta(), InboxID: ev.InboxID}
		t.save(ts)
	}
	if tag := events.InboxTag(ev.InboxID); tag != "" {
		ref, rs, err := load[TagRef](t, tagKey(tag))
		if err != nil {
			return err
		}
		if !t.applied(rs) {
			if !live(rs) {
				ref.Inboxes = nil
			}
			if !slices.Contains(ref.Inboxes, ev.InboxID) {
				ref.Inboxes = append(ref.Inboxes, ev.InboxID)
			}
			t.save(rs)
		}
	}
	a, as, err := load[Address](t, addressKey(ev.Address))
	if err != nil {
		return err
	}
	if !t.applied(as) {
		*a = Address{Meta: *a.meta(), InboxID: ev.InboxID, Live: true, LifecycleSeq: t.seq}
		t.save(as)
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
	resumed := t.applied(as) && (a.Gone || a.InboxID == inboxID)
	ended := (a.InboxID == inboxID && live(as) && a.Live) || resumed
	t.forget.Inboxes = append(t.forget.Inboxes, events.ForgetInbox{ID: inboxID, Address: addr, Seq: t.seq, Ended: ended})
	if ended {
		return t.inboxEnded(inboxID, kind, as)
	}
	if live(as) && a.Live {
		in, is, err := load[Inbox](t, inboxKey(a.InboxID))
		if err != nil {
			return err
		}
		if live(is) && !t.applied(is) {
			in.LifecycleSeq = t.seq
			t.save(is)
		}
	}
	if !t.applied(as) {
		a.LifecycleSeq = t.seq
		t.save(as)
	}
	return nil
}

// inboxEnded removes an inbox with its list pages, token, tag and
// subscriptions; the inbox and its address go last, as the index that
// finds the rest if this is applied again.
func (t *tx) inboxEnded(inboxID, kind string, as *staged) error {
	in, is, err := load[Inbox](t, inboxKey(inboxID))
	if err != nil {
		return err
	}
	if live(is) && !t.applied(is) {
		if err := t.tell(in, kind, nil, ""); err != nil {
			return err
		}
		for _, ref := range in.Pages {
			_, ps, err := load[Page](t, pageKey(inboxID, ref.N))
			if err != nil {
				return err
			}
			t.remove(ps)
		}
		if err := t.unindexLegacy(in.ID, in.Head); err != nil {
			return err
		}
		for _, ref := range in.Webhooks {
			w, ws, err := load[Webhook](t, webhookKey(ref.ID))
			if err != nil {
				return err
			}
			if live(ws) {
				t.forgetWebhookClaim(w)
			}
			t.remove(ws)
		}
		_, ts, err := load[TokenRef](t, tokenKey(in.Token))
		if err != nil {
			return err
		}
		t.remove(ts)
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
		t.remove(is)
	}
	// The address is free again, and its history leaves the log: a claim
	// expects nothing on its lifecycle subject, as for an address never
	// used.
	t.remove(as)
	return nil
}

// untag takes an ended inbox out of its tag's entry.
func (t *tx) untag(inboxID string) error {
	tag := events.InboxTag(inboxID)
	if tag == "" {
		return nil
	}
	ref, rs, err := load[TagRef](t, tagKey(tag))
	if err != nil || !live(rs) || t.applied(rs) {
		return err
	}
	ref.Inboxes = slices.DeleteFunc(ref.Inboxes, func(id string) bool { return id == inboxID })
	if len(ref.Inboxes) == 0 {
		t.remove(rs)
	} else {
		t.save(rs)
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
		t.remove(ms)
	}
	return nil
}

// liveInbox loads an inbox for an event about its mail: nil when it has
// ended (the event is then moot) or already reflects the event.
func (t *tx) liveInbox(id string) (*Inbox, *staged, error) {
	in, is, err := load[Inbox](t, inboxKey(id))
	if err != nil || t.applied(is) {
		return nil, nil, err
	}
	if !live(is) {
		return nil, is, nil
	}
	return in, is, nil
}
