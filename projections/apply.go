package projections

import (
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
		return t.setDomain(ev.ID, ev.Name, true)
	case *events.DomainDeactivated:
		return t.setDomain(ev.ID, ev.Name, false)
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
	}
	return fmt.Errorf("projections: no view handles %s", p.EventType())
}

func (t *tx) setDomain(id int, name string, active bool) error {
	d, s, err := load[Domains](t, domainsKey)
	if err != nil || t.applied(s) {
		return err
	}
	i := slices.IndexFunc(d.List, func(x Domain) bool { return x.ID == id })
	if i < 0 {
		d.List = append(d.List, Domain{ID: id})
		i = len(d.List) - 1
	}
	d.List[i].Name, d.List[i].Active = name, active
	slices.SortFunc(d.List, func(a, b Domain) int { return a.ID - b.ID })
	t.save(s)
	return nil
}

func (t *tx) inboxCreated(ev *events.InboxCreated) error {
	in, is, err := load[Inbox](t, inboxKey(ev.InboxID))
	if err != nil {
		return err
	}
	if !t.applied(is) {
		*in = Inbox{Meta: *in.meta(), ID: ev.InboxID, Address: ev.Address, Token: ev.Token, Family: ev.Family,
			DomainID: ev.DomainID, CreatedAt: ev.CreatedAt, ExpiresAt: ev.ExpiresAt, TTL: ev.TTL, LifecycleSeq: t.seq}
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
			_, ws, err := load[Webhook](t, webhookKey(ref.ID))
			if err != nil {
				return err
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

func (t *tx) mailReceived(ev *events.MailReceived) error {
	in, is, err := t.liveInbox(ev.InboxID)
	if err != nil || (in == nil && is == nil) {
		return err // applied already
	}
	forgotten := events.ForgetMessage{ID: ev.MessageID, InboxID: ev.InboxID, Address: ev.Address, Key: ev.Key,
		RawObject: ev.RawObject, Seqs: []uint64{t.seq}}
	if in == nil {
		// The inbox ended first: the message is forgotten with it.
		t.forget.Messages = append(t.forget.Messages, forgotten)
		return nil
	}
	if dup, err := t.printed(in, ev); err != nil || dup {
		// A sender's retry that the stream's dedupe window no longer
		// recognised, and ingest did not either (it raced the first copy):
		// the first copy stays, this one is forgotten.
		if dup {
			t.forget.Messages = append(t.forget.Messages, forgotten)
		}
		return err
	}
	if len(in.Head) >= pageMaxItems {
		if err := t.closeHead(in); err != nil {
			return err
		}
	}
	in.Head = slices.Insert(in.Head, 0, Summary{ID: ev.MessageID, ReceivedAt: ev.ReceivedAt, Size: ev.Size,
		ContentSeq: t.seq, Key: ev.Key, RawObject: ev.RawObject, Print: ev.Print})
	in.Count++
	if legacy(in.ID, ev.MessageID) {
		ref, ms, err := load[MessageRef](t, messageRefKey(ev.MessageID))
		if err != nil {
			return err
		}
		*ref = MessageRef{Meta: *ref.meta(), InboxID: in.ID}
		t.save(ms)
	}
	if err := t.tell(in, events.HookMessageReceived, &in.Head[0], ""); err != nil {
		return err
	}
	for t.rules.MaxMessages > 0 && in.Count > t.rules.MaxMessages {
		if err := t.evictOldest(in); err != nil {
			return err
		}
	}
	t.save(is)
	return nil
}

// printed reports whether a message with ev's print is among the inbox's
// newest (its open page and its newest closed one: the retries an MTA
// makes come within hours, not a thousand messages later).
func (t *tx) printed(in *Inbox, ev *events.MailReceived) (bool, error) {
	same := func(s *Summary) bool { return s.ID != ev.MessageID && s.DeletedSeq == 0 && s.Print.Matches(ev.Print) }
	if ev.Print.Raw == 0 {
		return false, nil
	}
	if slices.ContainsFunc(in.Head, func(s Summary) bool { return same(&s) }) {
		return true, nil
	}
	if len(in.Pages) == 0 {
		return false, nil
	}
	pg, ps, err := load[Page](t, pageKey(in.ID, in.Pages[0].N))
	if err != nil || !live(ps) {
		return false, err
	}
	return slices.ContainsFunc(pg.Items, func(s Summary) bool { return same(&s) }), nil
}

// closeHead writes the inbox's full open page out as a closed page.
func (t *tx) closeHead(in *Inbox) error {
	pg, ps, err := load[Page](t, pageKey(in.ID, in.NextPage))
	if err != nil {
		return err
	}
	if !t.applied(ps) {
		pg.Items = slices.Clone(in.Head)
		t.save(ps)
	}
	in.Pages = slices.Insert(in.Pages, 0, PageRef{N: in.NextPage, Size: len(in.Head), Last: in.Head[0].ID})
	in.NextPage++
	in.Head = nil
	return nil
}

// evictOldest deletes the inbox's oldest message, beyond its cap: it has
// to make room for the one that just arrived.
func (t *tx) evictOldest(in *Inbox) error {
	if len(in.Pages) == 0 {
		s := in.Head[len(in.Head)-1]
		in.Head = in.Head[:len(in.Head)-1]
		return t.gone(in, &s, events.ReasonCap)
	}
	last := len(in.Pages) - 1
	pg, ps, err := load[Page](t, pageKey(in.ID, in.Pages[last].N))
	if err != nil {
		return err
	}
	// The oldest the page still shows, or the one this very event marked
	// deleted in an application written in part.
	for j := len(pg.Items) - 1; j >= 0; j-- {
		if s := &pg.Items[j]; s.DeletedSeq == 0 || s.DeletedSeq >= t.seq {
			return t.deleteInPage(in, last, pg, ps, j, events.ReasonCap)
		}
	}
	// A page with nothing left in it: it goes, and the next is tried.
	t.remove(ps)
	in.Pages = in.Pages[:last]
	return nil
}

// deleteInPage deletes the message at pg.Items[j], of the closed page at
// in.Pages[pos]: it is marked deleted in the page (see
// Summary.DeletedSeq), which is then written, and the inbox counts it gone.
func (t *tx) deleteInPage(in *Inbox, pos int, pg *Page, ps *staged, j int, reason string) error {
	s := pg.Items[j]
	if pg.Items[j].DeletedSeq == 0 {
		pg.Items[j].DeletedSeq = t.seq
		t.compact(pg)
		t.save(ps)
	}
	in.Pages[pos].Size--
	return t.gone(in, &s, reason)
}

// compact drops from a page what events before this batch deleted: they
// are applied whole, so no application of them needs it any more.
func (t *tx) compact(pg *Page) {
	pg.Items = slices.DeleteFunc(pg.Items, func(s Summary) bool { return s.DeletedSeq != 0 && s.DeletedSeq < t.first })
}

// gone records that a message left the inbox by this event: the inbox
// counts it out and tells its event streams and subscribers, and the log
// forgets it (its content's key, its raw object, its events: its
// MailReceived and MarkedRead, and this event when it is its Deleted).
func (t *tx) gone(in *Inbox, s *Summary, reason string) error {
	in.Count--
	t.mark(in, Mark{Seq: t.seq, Kind: ChangeDeleted, ID: s.ID, ContentSeq: s.ContentSeq})
	f := events.ForgetMessage{ID: s.ID, InboxID: in.ID, Address: in.Address, Key: s.Key, RawObject: s.RawObject,
		Seqs: []uint64{s.ContentSeq}, Retained: in.Family == events.FamilyB}
	if s.ReadSeq != 0 {
		f.Seqs = append(f.Seqs, s.ReadSeq)
	}
	if reason != events.ReasonCap {
		f.Seqs = append(f.Seqs, t.seq) // the Deleted itself (an eviction is part of a new message's arrival)
	}
	t.forget.Messages = append(t.forget.Messages, f)
	if legacy(in.ID, s.ID) {
		if err := t.unindexLegacy(in.ID, []Summary{*s}); err != nil {
			return err
		}
	}
	return t.tell(in, events.HookMessageDeleted, s, reason)
}

// mark records a read or a deletion among the inbox's latest marks.
func (t *tx) mark(in *Inbox, m Mark) {
	in.Marks = append(in.Marks, m)
	if drop := len(in.Marks) - marksKept; drop > 0 {
		in.Forgotten = max(in.Forgotten, in.Marks[drop-1].Seq)
		in.Marks = slices.Delete(in.Marks, 0, drop)
	}
}

// found is where a message of an inbox is: in its open page (pos -1, at
// in.Head[i]) or in the closed page at in.Pages[pos] (at pg.Items[i]).
type found struct {
	pos int
	i   int
	pg  *Page
	ps  *staged
}

// find looks a message up in an inbox, deleted ones left out but for those
// this very event or a later one deleted: the batch is being applied again
// after it was written in part, and when this event first applied the
// message was there.
func (t *tx) find(in *Inbox, id string) (*found, error) {
	for i := range in.Head {
		if in.Head[i].ID == id {
			return &found{pos: -1, i: i}, nil
		}
	}
	for _, pos := range pagesFor(in, id) {
		pg, ps, err := load[Page](t, pageKey(in.ID, in.Pages[pos].N))
		if err != nil {
			return nil, err
		}
		if !live(ps) {
			continue
		}
		for i := range pg.Items {
			if s := &pg.Items[i]; s.ID == id && (s.DeletedSeq == 0 || s.DeletedSeq >= t.seq) {
				return &found{pos: pos, i: i, pg: pg, ps: ps}, nil
			}
		}
	}
	return nil, nil
}

// pagesFor lists the closed pages of in that may hold the message id, the
// likeliest first. Pages are filled in the order messages are applied,
// and ids sort by when they were made, a moment before; so page i holds
// the ids after page i+1's last, up to its own last, but for the few made
// out of order, which are in a page beside.
func pagesFor(in *Inbox, id string) []int {
	if len(in.Pages) == 0 {
		return nil
	}
	i := 0
	for i+1 < len(in.Pages) && id <= in.Pages[i+1].Last {
		i++
	}
	out := []int{i}
	if i > 0 {
		out = append(out, i-1)
	}
	if i+1 < len(in.Pages) {
		out = append(out, i+1)
	}
	return out
}

func (t *tx) markedRead(ev *events.MarkedRead) error {
	in, is, err := t.liveInbox(ev.InboxID)
	if err != nil || (in == nil && is == nil) {
		return err
	}
	var f *found
	if in != nil {
		if f, err = t.find(in, ev.MessageID); err != nil {
			return err
		}
	}
	var s *Summary
	switch {
	case f == nil:
	case f.pos < 0:
		s = &in.Head[f.i]
	default:
		s = &f.pg.Items[f.i]
	}
	if s == nil || (s.IsRead && s.ReadSeq != t.seq) {
		t.moot() // a message gone, or read before
		return nil
	}
	if !s.IsRead {
		s.IsRead, s.ReadSeq = true, t.seq
		if f.pos >= 0 {
			t.compact(f.pg)
			t.save(f.ps)
		}
	}
	t.mark(in, Mark{Seq: t.seq, Kind: ChangeRead, ID: ev.MessageID})
	if err := t.tell(in, events.HookMessageRead, s, ""); err != nil {
		return err
	}
	t.save(is)
	return nil
}

func (t *tx) deleted(ev *events.Deleted) error {
	in, is, err := t.liveInbox(ev.InboxID)
	if err != nil || (in == nil && is == nil) {
		return err
	}
	var f *found
	if in != nil {
		if f, err = t.find(in, ev.MessageID); err != nil {
			return err
		}
	}
	if f == nil {
		t.moot() // deleted before, or its inbox ended
		return nil
	}
	if f.pos < 0 {
		s := in.Head[f.i]
		in.Head = slices.Delete(in.Head, f.i, f.i+1)
		err = t.gone(in, &s, ev.Reason)
	} else {
		err = t.deleteInPage(in, f.pos, f.pg, f.ps, f.i, ev.Reason)
	}
	if err != nil {
		return err
	}
	t.save(is)
	return nil
}

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
	ref := WebhookRef{ID: ev.WebhookID, Events: ev.Events, Seq: t.seq}
	entry := func() error {
		w, ws, err := load[Webhook](t, webhookKey(ev.WebhookID))
		if err != nil {
			return err
		}
		*w = Webhook{Meta: *w.meta(), ID: ev.WebhookID, URL: ev.URL, Events: ev.Events, InboxID: ev.InboxID,
			Address: ev.Address, Secret: ev.Secret, CreatedAt: ev.CreatedAt}
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
		return nil
	}
	if slices.ContainsFunc(in.Webhooks, func(r WebhookRef) bool { return r.ID == ref.ID }) {
		return nil
	}
	if err := entry(); err != nil {
		return err
	}
	in.Webhooks = append(in.Webhooks, ref)
	t.save(is)
	return nil
}

// webhookDeleted ends a subscription: out of its index, then its entry;
// the log forgets its events.
func (t *tx) webhookDeleted(ev *events.WebhookDeleted) error {
	isIt := func(r WebhookRef) bool { return r.ID == ev.WebhookID }
	var refs *[]WebhookRef
	var index *staged
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
			refs, index = &in.Webhooks, is
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
	}
	*refs = slices.Delete(*refs, i, i+1)
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
	w.Later = append(w.Later, t.seq)
	t.save(ws)
	return nil
}
