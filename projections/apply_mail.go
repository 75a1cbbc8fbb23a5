package projections

import (
	"errors"
	"slices"

	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections/engine"
)

// Applying mail: a message received (into the inbox's open page, closing
// it when full, evicting the oldest beyond the cap), read, deleted.

// errInboxUnseen: a message's inbox is live in the log, but its view entry
// could not be read; the batch is applied again after a pause, rather than
// the message forgotten.
var errInboxUnseen = errors.New("the message's inbox is live in the log but its view entry was not found; trying again")

func (t *tx) mailReceived(ev *events.MailReceived) error {
	in, is, err := t.liveInbox(ev.InboxID)
	if err != nil || (in == nil && is == nil) {
		return err // applied already
	}
	forgotten := events.ForgetMessage{ID: ev.MessageID, InboxID: ev.InboxID, Address: ev.Address, Key: ev.Key,
		RawObject: ev.RawObject, Seqs: []uint64{t.Seq}}
	claimSeq := uint64(0)
	if ev.ClaimBack > 0 {
		claimSeq = t.Seq - ev.ClaimBack
	}
	if in == nil && !is.Present() && t.inboxLive != nil {
		// No entry at all, not even a tombstone (which lasts a minute):
		// the inbox ended long before, or the read was wrong (a views
		// stream that just changed leader). The log says which; mail is
		// never forgotten on a read's word.
		live, err := t.inboxLive(t.Context(), ev.Address, ev.InboxID)
		if err != nil {
			return err
		}
		if live {
			return errInboxUnseen
		}
	}
	if in == nil {
		// The inbox ended first: the message is forgotten with it.
		t.Forget.Messages = append(t.Forget.Messages, forgotten)
		return t.claimAway(ev, claimSeq)
	}
	if dup, err := t.printed(in, ev); err != nil || dup {
		// A sender's retry that the stream's dedupe window no longer
		// recognised, and ingest did not either (it raced the first copy):
		// the first copy stays, this one is forgotten.
		if dup {
			t.Forget.Messages = append(t.Forget.Messages, forgotten)
			return t.claimAway(ev, claimSeq)
		}
		return err
	}
	if len(in.Head) >= pageMaxItems {
		if err := t.closeHead(in); err != nil {
			return err
		}
	}
	in.Head = slices.Insert(in.Head, 0, Summary{ID: ev.MessageID, ReceivedAt: ev.ReceivedAt, Size: ev.Size,
		ContentSeq: t.Seq, Key: ev.Key, RawObject: ev.RawObject, Print: ev.Print, ClaimSeq: claimSeq})
	in.Count++
	if in.TenantID != "" {
		if err := t.received(in, ev.ReceivedAt, ev.Size, claimSeq != 0); err != nil {
			return err
		}
	}
	if legacy(in.ID, ev.MessageID) {
		ref, ms, err := load[MessageRef](t, messageRefKey(ev.MessageID))
		if err != nil {
			return err
		}
		*ref = MessageRef{Meta: ref.Meta, InboxID: in.ID}
		t.Save(ms)
	}
	if err := t.tell(in, mailbox.HookMessageReceived, &in.Head[0], ""); err != nil {
		return err
	}
	for t.rules.MaxMessages > 0 && in.Count > t.rules.MaxMessages {
		if err := t.evictOldest(in); err != nil {
			return err
		}
	}
	t.Save(is)
	return nil
}

// printed reports whether a message with ev's print is among the inbox's
// newest (its open page and its newest closed one: the retries an MTA
// makes come within hours, not a thousand messages later).
func (t *tx) printed(in *Inbox, ev *events.MailReceived) (bool, error) {
	if ev.Print.Raw == 0 {
		return false, nil
	}
	// By index, prints first: a Summary is large to copy, and an id
	// compares byte by byte.
	among := func(items []Summary) bool {
		for i := range items {
			if s := &items[i]; s.Print.Matches(ev.Print) && s.DeletedSeq == 0 && s.ID != ev.MessageID {
				return true
			}
		}
		return false
	}
	if among(in.Head) {
		return true, nil
	}
	if len(in.Pages) == 0 {
		return false, nil
	}
	pg, live, err := engine.Peek[Page](t.Tx, pageKey(in.ID, in.Pages[0].N))
	if err != nil || !live {
		return false, err
	}
	return among(pg.Items), nil
}

// closeHead writes the inbox's full open page out as a closed page.
func (t *tx) closeHead(in *Inbox) error {
	pg, ps, err := load[Page](t, pageKey(in.ID, in.NextPage))
	if err != nil {
		return err
	}
	if !t.Applied(ps) {
		pg.Items = slices.Clone(in.Head)
		t.Save(ps)
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
		return t.gone(in, &s, mailbox.ReasonCap)
	}
	last := len(in.Pages) - 1
	pg, ps, err := load[Page](t, pageKey(in.ID, in.Pages[last].N))
	if err != nil {
		return err
	}
	// The oldest the page still shows, or the one this very event marked
	// deleted in an application written in part.
	for j := len(pg.Items) - 1; j >= 0; j-- {
		if s := &pg.Items[j]; s.DeletedSeq == 0 || s.DeletedSeq >= t.Seq {
			return t.deleteInPage(in, last, pg, ps, j, mailbox.ReasonCap)
		}
	}
	// A page with nothing left in it: it goes, and the next is tried.
	t.Remove(ps)
	in.Pages = in.Pages[:last]
	return nil
}

// deleteInPage deletes the message at pg.Items[j], of the closed page at
// in.Pages[pos]: it is marked deleted in the page (see
// Summary.DeletedSeq), which is then written, and the inbox counts it gone.
func (t *tx) deleteInPage(in *Inbox, pos int, pg *Page, ps *engine.Staged, j int, reason string) error {
	s := pg.Items[j]
	if pg.Items[j].DeletedSeq == 0 {
		pg.Items[j].DeletedSeq = t.Seq
		t.compact(pg)
		t.Save(ps)
	}
	in.Pages[pos].Size--
	return t.gone(in, &s, reason)
}

// compact drops from a page what events before this batch deleted: they
// are applied whole, so no application of them needs it any more.
func (t *tx) compact(pg *Page) {
	pg.Items = slices.DeleteFunc(pg.Items, func(s Summary) bool { return s.DeletedSeq != 0 && s.DeletedSeq < t.First() })
}

// gone records that a message left the inbox by this event: the inbox
// counts it out and tells its event streams and subscribers, and the log
// forgets it (its content's key, its raw object, its events: its
// MailReceived and MarkedRead, and this event when it is its Deleted).
func (t *tx) gone(in *Inbox, s *Summary, reason string) error {
	in.Count--
	if in.TenantID != "" {
		if err := t.dropped(in, s); err != nil {
			return err
		}
	}
	t.mark(in, Mark{Seq: t.Seq, Kind: ChangeDeleted, ID: s.ID, ContentSeq: s.ContentSeq})
	f := events.ForgetMessage{ID: s.ID, InboxID: in.ID, Address: in.Address, Key: s.Key, RawObject: s.RawObject,
		Seqs: []uint64{s.ContentSeq}, Retained: in.Retention == mailbox.RetainMessages}
	if s.ReadSeq != 0 {
		f.Seqs = append(f.Seqs, s.ReadSeq)
	}
	if reason != mailbox.ReasonCap {
		f.Seqs = append(f.Seqs, t.Seq) // the Deleted itself (an eviction is part of a new message's arrival)
	}
	t.Forget.Messages = append(t.Forget.Messages, f)
	if s.ClaimSeq != 0 {
		t.Forget.Claims = append(t.Forget.Claims, events.ForgetClaim{Seq: s.ClaimSeq, Type: events.TypeMailClaimed, ID: s.ID})
	}
	if legacy(in.ID, s.ID) {
		if err := t.unindexLegacy(in.ID, []Summary{*s}); err != nil {
			return err
		}
	}
	return t.tell(in, mailbox.HookMessageDeleted, s, reason)
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
	ps  *engine.Staged
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
		if !ps.Live() {
			continue
		}
		for i := range pg.Items {
			if s := &pg.Items[i]; s.ID == id && (s.DeletedSeq == 0 || s.DeletedSeq >= t.Seq) {
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
	if s == nil || (s.IsRead && s.ReadSeq != t.Seq) {
		t.Moot() // a message gone, or read before
		return nil
	}
	if !s.IsRead {
		s.IsRead, s.ReadSeq = true, t.Seq
		if f.pos >= 0 {
			t.compact(f.pg)
			t.Save(f.ps)
		}
	}
	t.mark(in, Mark{Seq: t.Seq, Kind: ChangeRead, ID: ev.MessageID})
	if err := t.tell(in, mailbox.HookMessageRead, s, ""); err != nil {
		return err
	}
	t.Save(is)
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
		t.Moot() // deleted before, or its inbox ended
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
	t.Save(is)
	return nil
}

// claimAway counts out the claim of a message that never joined its
// inbox (which ended first, or had it already): released, and it leaves
// the log with the message.
func (t *tx) claimAway(ev *events.MailReceived, claimSeq uint64) error {
	if claimSeq == 0 || ev.TenantID == "" {
		return nil
	}
	t.Forget.Claims = append(t.Forget.Claims, events.ForgetClaim{Seq: claimSeq, Type: events.TypeMailClaimed, ID: ev.MessageID})
	u, us, err := t.usage(ev.TenantID)
	if err != nil || u == nil {
		return err
	}
	u.Released.Add(utcDay(ev.ReceivedAt), ev.Size)
	t.keep(u, us)
	return nil
}
