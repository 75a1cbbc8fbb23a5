package projections

import (
	"context"
	"fmt"
	"slices"

	"tempmail/events"
)

// apply applies one event to the views. Writes are ordered so that the entry
// a reader reaches first (the inbox, the address) changes last; the sequence
// check on every entry makes a repeated or resumed application harmless.
func apply(ctx context.Context, st viewStore, seq uint64, p events.Payload) error {
	_, err := applyEvent(ctx, st, seq, p)
	return err
}

// applied is what applying an event did beyond its writes: whether it
// ended a live inbox (an InboxDeleted or InboxExpired can come too late to
// end anything), which decides what of the log it purges
// (events.Store.Purge), and how its writes changed the partition's counts.
// Even when applying fails, delta is that of the writes that were made: the
// next attempt finds them applied and does not make (or count) them again.
type applied struct {
	ended bool
	delta Counts
}

func applyEvent(ctx context.Context, st viewStore, seq uint64, p events.Payload) (applied, error) {
	t := &tx{ctx: ctx, st: st, seq: seq}
	err := t.apply(p)
	return applied{ended: t.ended, delta: t.delta}, err
}

// applyCounting is apply, and says how the writes it made changed the
// number of live inboxes and stored messages.
func applyCounting(ctx context.Context, st viewStore, seq uint64, p events.Payload) (Counts, error) {
	a, err := applyEvent(ctx, st, seq, p)
	return a.delta, err
}

func (t *tx) apply(p events.Payload) error {
	switch ev := p.(type) {
	case *events.DomainAdded:
		return t.setDomain(ev.ID, ev.Name, true)
	case *events.DomainDeactivated:
		return t.setDomain(ev.ID, ev.Name, false)
	case *events.InboxCreated:
		return t.inboxCreated(ev)
	case *events.InboxDeleted:
		return t.lifecycleEnded(ev.InboxID, ev.Address)
	case *events.InboxExpired:
		return t.lifecycleEnded(ev.InboxID, ev.Address)
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
	}
	return fmt.Errorf("projections: no view handles %s", p.EventType())
}

func (t *tx) setDomain(id int, name string, active bool) error {
	var d Domains
	e, err := t.load(domainsKey, &d)
	if err != nil || e.applied {
		return err
	}
	i := slices.IndexFunc(d.List, func(x Domain) bool { return x.ID == id })
	if i < 0 {
		d.List = append(d.List, Domain{ID: id})
		i = len(d.List) - 1
	}
	d.List[i].Name, d.List[i].Active = name, active
	slices.SortFunc(d.List, func(a, b Domain) int { return a.ID - b.ID })
	return t.save(e, &d)
}

func (t *tx) inboxCreated(ev *events.InboxCreated) error {
	var in Inbox
	ie, err := t.load(inboxKey(ev.InboxID), &in)
	if err != nil {
		return err
	}
	in = Inbox{ID: ev.InboxID, Address: ev.Address, Token: ev.Token, Family: ev.Family,
		DomainID: ev.DomainID, CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt, TTL: ev.TTL,
		LifecycleSeq: t.seq}
	if err := t.save(ie, &in); err != nil {
		return err
	}
	var tok TokenRef
	te, err := t.load(tokenKey(ev.Token), &tok)
	if err != nil {
		return err
	}
	if err := t.save(te, &TokenRef{InboxID: ev.InboxID}); err != nil {
		return err
	}
	var a Address
	ae, err := t.load(addressKey(ev.Address), &a)
	if err != nil {
		return err
	}
	return t.save(ae, &Address{InboxID: ev.InboxID, Live: true, LifecycleSeq: t.seq})
}

// lifecycleEnded applies an InboxDeleted or InboxExpired. Usually it ends
// the address's live inbox. A scheduled expiry can also fire for an inbox
// that was deleted already: then it ends nothing, but when it lands after a
// newer inbox's creation it is now the last event on the address's
// lifecycle subject, so the address and its live inbox must expect it.
func (t *tx) lifecycleEnded(inboxID, addr string) error {
	var a Address
	ae, err := t.load(addressKey(addr), &a)
	if err != nil {
		return err
	}
	// Resuming an ending that stopped half-way, after the address was
	// written: its tombstone (or, written by an earlier version, its
	// ended entry) carries this event's sequence.
	resumed := ae.applied && (a.Gone || a.InboxID == inboxID)
	if (a.InboxID == inboxID && a.Live) || resumed {
		t.ended = true
		return t.inboxEnded(inboxID, addr, ae)
	}
	if a.Live {
		var in Inbox
		ie, err := t.load(inboxKey(a.InboxID), &in)
		if err != nil {
			return err
		}
		if live(ie, &in) {
			in.LifecycleSeq = t.seq
			if err := t.save(ie, &in); err != nil {
				return err
			}
		}
	}
	a.LifecycleSeq = t.seq
	return t.save(ae, &a)
}

// inboxEnded removes an inbox with all its messages and list pages. The inbox
// entry goes last: it is the index that finds the rest if this is resumed.
func (t *tx) inboxEnded(inboxID, addr string, ae *entry) error {
	var in Inbox
	ie, err := t.load(inboxKey(inboxID), &in)
	if err != nil || ie.applied || !live(ie, &in) {
		return err
	}
	for _, n := range in.Pages {
		var pg Page
		pe, err := t.load(pageKey(inboxID, n), &pg)
		if err != nil {
			return err
		}
		for _, s := range pg.Items {
			var m Message
			me, err := t.load(messageKey(s.ID), &m)
			if err != nil {
				return err
			}
			if err := t.remove(me); err != nil {
				return err
			}
		}
		if err := t.remove(pe); err != nil {
			return err
		}
	}
	var rm Removals
	re, err := t.load(removalsKey(inboxID), &rm)
	if err != nil {
		return err
	}
	if err := t.remove(re); err != nil {
		return err
	}
	// Its subscriptions end with it.
	for _, ref := range in.Webhooks {
		var w Webhook
		we, err := t.load(webhookKey(ref.ID), &w)
		if err != nil {
			return err
		}
		if err := t.remove(we); err != nil {
			return err
		}
	}
	var tok TokenRef
	te, err := t.load(tokenKey(in.Token), &tok)
	if err != nil {
		return err
	}
	if err := t.remove(te); err != nil {
		return err
	}
	// The address is free again, and its history leaves the log
	// (events.Store.Purge): a claim expects nothing on its lifecycle
	// subject, as for an address never used.
	if err := t.remove(ae); err != nil {
		return err
	}
	return t.remove(ie)
}

func (t *tx) mailReceived(ev *events.MailReceived) error {
	var in Inbox
	ie, err := t.load(inboxKey(ev.InboxID), &in)
	if err != nil || ie.applied || !live(ie, &in) {
		return err
	}
	var m Message
	me, err := t.load(messageKey(ev.MessageID), &m)
	if err != nil {
		return err
	}
	var pg Page
	var pe *entry
	if !me.applied {
		// The newest page takes the message until it is full; the page
		// loaded to decide is the one written below, read once.
		page := in.NextPage
		if len(in.Pages) > 0 {
			if pe, err = t.load(pageKey(in.ID, in.Pages[0]), &pg); err != nil {
				return err
			}
			if len(pg.Items) < pageMaxItems {
				page = in.Pages[0]
			}
		}
		m = messageFrom(ev, t.seq, page)
		if err := t.save(me, &m); err != nil {
			return err
		}
	}
	if pe == nil || pe.key != pageKey(in.ID, m.Page) {
		pg = Page{}
		if pe, err = t.load(pageKey(in.ID, m.Page), &pg); err != nil {
			return err
		}
	}
	pg.Items = slices.Insert(pg.Items, 0, summaryOf(&m))
	if err := t.save(pe, &pg); err != nil {
		return err
	}

	if len(in.Pages) == 0 || in.Pages[0] != m.Page {
		in.Pages = slices.Insert(in.Pages, 0, m.Page)
		in.PageSizes = slices.Insert(in.PageSizes, 0, 0)
		in.NextPage = m.Page + 1
	}
	in.PageSizes[0] = len(pg.Items)
	in.Count++
	in.Latest = m.ID
	return t.save(ie, &in)
}

func (t *tx) markedRead(ev *events.MarkedRead) error {
	var m Message
	me, err := t.load(messageKey(ev.MessageID), &m)
	if err != nil || !live(me, &m) || m.InboxID != ev.InboxID {
		return err
	}
	if !m.IsRead {
		m.IsRead, m.ReadSeq = true, t.seq
		if err := t.save(me, &m); err != nil {
			return err
		}
	}
	var pg Page
	pe, err := t.load(pageKey(m.InboxID, m.Page), &pg)
	if err != nil || !live(pe, &pg) {
		return err
	}
	i := slices.IndexFunc(pg.Items, func(s Summary) bool { return s.ID == m.ID })
	if i < 0 {
		return nil
	}
	if !pg.Items[i].IsRead {
		pg.Items[i].IsRead, pg.Items[i].ReadSeq = true, m.ReadSeq
		if err := t.save(pe, &pg); err != nil {
			return err
		}
	}
	if pg.Items[i].ReadSeq != t.seq {
		return nil // it was read before
	}
	// The inbox entry goes last, as for every event that changes what its
	// event stream tells (Reader.Changes).
	var in Inbox
	ie, err := t.load(inboxKey(m.InboxID), &in)
	if err != nil || !live(ie, &in) {
		return err
	}
	return t.save(ie, &in)
}

func (t *tx) deleted(ev *events.Deleted) error {
	var m Message
	me, err := t.load(messageKey(ev.MessageID), &m)
	if err != nil {
		return err
	}
	// resumed: this very event already tombstoned the message in an
	// application that stopped half-way; the page and inbox may still need it.
	resumed := me.found && m.Gone && m.Seq == t.seq
	if !resumed && (!live(me, &m) || m.InboxID != ev.InboxID) {
		return nil
	}
	var in Inbox
	ie, err := t.load(inboxKey(ev.InboxID), &in)
	if err != nil || !live(ie, &in) {
		return err
	}
	// Event streams that reconnect learn of deletions they missed here.
	// It is written before the message is tombstoned, so that a resumed
	// application (below) finds it written and needs m no more.
	var rm Removals
	re, err := t.load(removalsKey(in.ID), &rm)
	if err != nil {
		return err
	}
	if !re.applied {
		rm.Items = append(rm.Items, Removal{ID: ev.MessageID, Seq: t.seq, ContentSeq: m.ContentSeq})
		if drop := len(rm.Items) - removalsKept; drop > 0 {
			rm.Dropped = rm.Items[drop-1].Seq
			rm.Items = rm.Items[drop:]
		}
		if err := t.save(re, &rm); err != nil {
			return err
		}
	}

	page := m.Page
	if resumed {
		if page, err = t.pageHolding(&in, ev.MessageID); err != nil {
			return err
		}
	} else if err := t.remove(me); err != nil {
		return err
	}

	var pg Page
	pe, err := t.load(pageKey(in.ID, page), &pg)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(pg.Items, func(s Summary) bool { return s.ID == ev.MessageID }); i >= 0 {
		pg.Items = slices.Delete(pg.Items, i, i+1)
	}
	if len(pg.Items) == 0 {
		err = t.remove(pe)
	} else {
		err = t.save(pe, &pg)
	}
	if err != nil || ie.applied {
		return err
	}

	in.Count--
	// Drop emptied pages from the index, and record this page's new size.
	// Usually only this page changed; after a resumed application any page
	// may have been emptied already.
	var kept []int64
	var sizes []int
	var head *Page
	for i, n := range in.Pages {
		if n != page && !resumed && head != nil {
			kept, sizes = append(kept, n), append(sizes, in.PageSizes[i]) // untouched, and Latest is already known
			continue
		}
		p := pg
		if n != page {
			p = Page{}
			if _, err := t.load(pageKey(in.ID, n), &p); err != nil {
				return err
			}
		}
		if len(p.Items) > 0 && !p.Gone {
			kept, sizes = append(kept, n), append(sizes, len(p.Items))
			if head == nil {
				head = &p
			}
		}
	}
	in.Pages, in.PageSizes = kept, sizes
	in.Latest = ""
	if head != nil {
		in.Latest = head.Items[0].ID
	}
	return t.save(ie, &in)
}

// pageHolding finds the page listing a message, or -1.
func (t *tx) pageHolding(in *Inbox, messageID string) (int64, error) {
	for _, n := range in.Pages {
		var pg Page
		if _, err := t.load(pageKey(in.ID, n), &pg); err != nil {
			return 0, err
		}
		if slices.ContainsFunc(pg.Items, func(s Summary) bool { return s.ID == messageID }) {
			return n, nil
		}
	}
	return -1, nil
}

// webhookCreated records a subscription: its entry first, then the index
// that dispatch reads (its inbox's entry, or the list of subscriptions to
// every inbox), so that a resumed application finds the entry written.
func (t *tx) webhookCreated(ev *events.WebhookCreated) error {
	ref := WebhookRef{ID: ev.WebhookID, Events: ev.Events, Seq: t.seq}
	w := Webhook{ID: ev.WebhookID, URL: ev.URL, Events: ev.Events, InboxID: ev.InboxID,
		Address: ev.Address, Secret: ev.Secret, CreatedAt: ev.CreatedAt}
	if ev.InboxID == "" {
		var l WebhookList
		le, err := t.load(webhooksKey, &l)
		if err != nil || le.applied {
			return err
		}
		we, err := t.load(webhookKey(ev.WebhookID), &Webhook{})
		if err != nil {
			return err
		}
		if err := t.save(we, &w); err != nil {
			return err
		}
		if !slices.ContainsFunc(l.Items, func(r WebhookRef) bool { return r.ID == ref.ID }) {
			l.Items = append(l.Items, ref)
		}
		return t.save(le, &l)
	}
	var in Inbox
	ie, err := t.load(inboxKey(ev.InboxID), &in)
	if err != nil || ie.applied || !live(ie, &in) {
		return err // an inbox that ended meanwhile takes no subscription
	}
	we, err := t.load(webhookKey(ev.WebhookID), &Webhook{})
	if err != nil {
		return err
	}
	if err := t.save(we, &w); err != nil {
		return err
	}
	if !slices.ContainsFunc(in.Webhooks, func(r WebhookRef) bool { return r.ID == ref.ID }) {
		in.Webhooks = append(in.Webhooks, ref)
	}
	return t.save(ie, &in)
}

// webhookDeleted ends a subscription: out of its index first, so that
// dispatch stops naming it, then its entry.
func (t *tx) webhookDeleted(ev *events.WebhookDeleted) error {
	notIt := func(r WebhookRef) bool { return r.ID == ev.WebhookID }
	if ev.InboxID == "" {
		var l WebhookList
		le, err := t.load(webhooksKey, &l)
		if err != nil {
			return err
		}
		l.Items = slices.DeleteFunc(l.Items, notIt)
		if err := t.save(le, &l); err != nil {
			return err
		}
	} else {
		var in Inbox
		ie, err := t.load(inboxKey(ev.InboxID), &in)
		if err != nil {
			return err
		}
		if live(ie, &in) {
			in.Webhooks = slices.DeleteFunc(in.Webhooks, notIt)
			if err := t.save(ie, &in); err != nil {
				return err
			}
		}
	}
	var w Webhook
	we, err := t.load(webhookKey(ev.WebhookID), &w)
	if err != nil {
		return err
	}
	return t.remove(we)
}

// webhookSecretRotated gives a live subscription its new secret; one that
// ended meanwhile stays ended.
func (t *tx) webhookSecretRotated(ev *events.WebhookSecretRotated) error {
	var w Webhook
	we, err := t.load(webhookKey(ev.WebhookID), &w)
	if err != nil || !we.live {
		return err
	}
	w.Secret = ev.Secret
	return t.save(we, &w)
}

func messageFrom(ev *events.MailReceived, seq uint64, page int64) Message {
	return Message{ID: ev.MessageID, InboxID: ev.InboxID, Address: ev.Address, Page: page,
		ReceivedAt: ev.ReceivedAt, Size: ev.Size, ContentSeq: seq, Key: ev.Key, RawObject: ev.RawObject}
}

func summaryOf(m *Message) Summary {
	return Summary{ID: m.ID, ReceivedAt: m.ReceivedAt, Size: m.Size, IsRead: m.IsRead, ReadSeq: m.ReadSeq,
		ContentSeq: m.ContentSeq, Key: m.Key}
}
