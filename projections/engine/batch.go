package engine

import (
	"context"
	"slices"
	"time"

	"tempmail/events"
	"tempmail/projections/view"
)

// A Batch applies a run of one partition's events to the views in memory
// and then writes what they changed, each entry once: the inbox that three
// messages of the batch arrived in is written once, reflecting all three.
// Every entry records the sequence of the last event that changed it, and
// an event is applied to an entry only if the entry does not reflect it
// yet; so a batch written in part before a crash, or applied again by
// another worker during a hand-over, is applied again exactly.
//
// The views apply each event (Applier.Apply) through a Tx: they Load the
// entries it concerns, and Save or Remove those it changes, which the
// sequence check makes harmless to do again. What the batch lets go
// (deleted messages, ended inboxes, moot events) is collected in Forget,
// for the log to forget once the views are written (worker.go).
type Batch struct {
	ctx   context.Context
	st    view.Store
	views Views
	live  bool
	// applier is the views' part of the batch (what the events call for
	// beyond the entries).
	applier Applier
	// staged are the entries loaded or changed, by key; order is the
	// order they were first changed in.
	staged map[string]*Staged
	order  []*Staged
	// Forget is what the batch lets go, for the log to forget: the
	// appliers add to it.
	Forget events.Forget
	// partOf names the partition of an address, for the counts.
	partOf func(addr string) string
	// before is what entries held before an earlier attempt at this
	// batch, whose writes may have been stored in part: the counts change
	// from there, not from what that attempt left.
	before map[string]loaded
	first  uint64 // the first and last event applied
	last   uint64
	events int
	// aside, when set, is the partition's record of events set aside as
	// it is to be written with the batch (aside.go).
	aside *SetAside
	// strict: an event set aside applied again, out of order; behind
	// says it found an entry a later event changed (aside.go).
	strict, behind bool
}

// loaded is what an entry held before the batch, for the counts.
type loaded struct {
	live bool
	held view.Counts
}

// NewBatch returns an empty batch that reads entries from st, applies
// events with views, and counts an inbox in the partition partOf names of
// its address. live: a worker's batch of the events it is handed (see
// Views.Applier).
func NewBatch(ctx context.Context, st view.Store, views Views, live bool, partOf func(string) string) *Batch {
	return &Batch{ctx: ctx, st: st, views: views, live: live, applier: views.Applier(live), partOf: partOf,
		staged: map[string]*Staged{}}
}

// Retry returns a batch for another attempt at b's events: it counts from
// what the entries held before b.
func (b *Batch) Retry(ctx context.Context, st view.Store) *Batch {
	next := NewBatch(ctx, st, b.views, b.live, b.partOf)
	next.before = map[string]loaded{}
	for k, s := range b.staged {
		next.before[k] = loaded{s.liveAtLoad, s.heldAtLoad}
	}
	for k, l := range b.before {
		next.before[k] = l
	}
	return next
}

// Context is the batch's: what its reads and the appliers' calls run in.
func (b *Batch) Context() context.Context { return b.ctx }

// First is the sequence of the first event the batch applied.
func (b *Batch) First() uint64 { return b.first }

// Staged is one entry as the batch has it.
type Staged struct {
	key     string
	rec     view.Record
	rev     uint64 // what a write must expect
	present bool   // the entry exists (live or a tombstone), in the store or in the batch
	changed bool
	// liveAtLoad and heldAtLoad are the entry's state before the batch,
	// for the partition's counts.
	liveAtLoad bool
	heldAtLoad view.Counts
}

// Present reports whether the entry exists, live or a tombstone, in the
// store or in the batch.
func (s *Staged) Present() bool { return s.present }

// Live reports whether the entry exists and is not a tombstone.
func (s *Staged) Live() bool { return s.present && !view.MetaOf(s.rec).Gone }

// Changed reports whether the batch changed the entry.
func (s *Staged) Changed() bool { return s.changed }

// Tx is the application of one event within a batch.
type Tx struct {
	*Batch
	Seq     uint64
	At      time.Time // when the event was stored
	Subject string
}

func (b *Batch) tx(seq uint64, subject string, at time.Time) *Tx {
	if b.first == 0 {
		b.first = seq
	}
	b.last = max(b.last, seq)
	b.events++
	return &Tx{Batch: b, Seq: seq, At: at, Subject: subject}
}

// Apply applies one event, at seq on subject, stored at at, to the batch.
// Writes are ordered when the batch is written (Views.Rank), not here; the
// sequence check on every entry makes a repeated or resumed application
// harmless.
func (b *Batch) Apply(seq uint64, subject string, at time.Time, p events.Payload) error {
	return b.applier.Apply(b.tx(seq, subject, at), p)
}

// Load returns the batch's record of key (a zero one when absent), read
// from the store the first time.
func Load[R any, P interface {
	*R
	view.Record
}](t *Tx, key string) (P, *Staged, error) {
	if s, ok := t.staged[key]; ok {
		return s.rec.(P), s, nil
	}
	p := P(new(R))
	rev, found, err := t.st.Get(t.ctx, key, p)
	if err != nil {
		return nil, nil, err
	}
	s := &Staged{key: key, rec: p, rev: rev, present: found}
	s.liveAtLoad = found && !view.MetaOf(p).Gone
	if c, ok := any(p).(Counted); ok && s.liveAtLoad {
		s.heldAtLoad, _ = c.Counts()
	}
	if l, ok := t.before[key]; ok {
		s.liveAtLoad, s.heldAtLoad = l.live, l.held
	}
	t.staged[key] = s
	return p, s, nil
}

// Peek returns key's record for reading only, and whether it is live:
// the batch's own when it has loaded the entry, or else the one the store
// keeps, shared and not copied (a page read to look for a retry is about
// 8 KiB to copy, at every message). The caller must not change it, nor
// Save it; an entry to change is loaded (Load).
func Peek[R any, P interface {
	*R
	view.Record
}](t *Tx, key string) (P, bool, error) {
	if s, ok := t.staged[key]; ok {
		return s.rec.(P), s.Live(), nil
	}
	if k, ok := t.st.(keeper); ok {
		if rec, ok := k.Kept(key); ok {
			if p, ok := rec.(P); ok {
				return p, !view.MetaOf(p).Gone, nil
			}
		}
	}
	p, s, err := Load[R, P](t, key)
	if err != nil {
		return nil, false, err
	}
	return p, s.Live(), nil
}

// keeper is a store that keeps records it read or wrote, decoded
// (view.KV).
type keeper interface {
	Kept(key string) (view.Record, bool)
}

// Applied reports whether an entry already reflects this event (or a
// later one): then the event leaves it alone.
func (t *Tx) Applied(s *Staged) bool {
	if !s.present {
		return false
	}
	seq := view.MetaOf(s.rec).Seq
	if t.strict && seq > t.Seq {
		t.behind = true
	}
	return seq >= t.Seq
}

// Save marks an entry changed by this event, unless it reflects it already.
func (t *Tx) Save(s *Staged) {
	if t.Applied(s) {
		return
	}
	m := view.MetaOf(s.rec)
	m.Seq, m.Gone = t.Seq, false
	t.touch(s)
}

// Remove turns an entry into a tombstone, unless it is absent or reflects
// this event already.
func (t *Tx) Remove(s *Staged) {
	if t.Applied(s) || !s.present {
		return
	}
	m := view.MetaOf(s.rec)
	m.Seq, m.Gone = t.Seq, true
	t.touch(s)
}

func (t *Tx) touch(s *Staged) {
	s.present = true
	if !s.changed {
		s.changed = true
		t.order = append(t.order, s)
	}
}

// Moot forgets the event itself: nothing in the views shows it (a read of
// a message already deleted, a subscription to an inbox already gone).
func (t *Tx) Moot() { t.Forget.Seqs = append(t.Forget.Seqs, t.Seq) }

// Changes are the batch's writes, in the order readers may see them: in
// runs of the same rank (Views.Rank), lowest first, each run to be stored
// before the next is sent (Engine.write); and how they change the counts
// of each partition.
func (b *Batch) Changes() ([][]view.Change, map[string]view.Counts) {
	order := slices.Clone(b.order)
	rank := func(s *Staged) int { return b.views.Rank(s.key, view.MetaOf(s.rec).Gone) }
	slices.SortStableFunc(order, func(x, y *Staged) int { return rank(x) - rank(y) })
	var runs [][]view.Change
	for i, s := range order {
		if i == 0 || rank(s) != rank(order[i-1]) {
			runs = append(runs, nil)
		}
		m := view.MetaOf(s.rec)
		runs[len(runs)-1] = append(runs[len(runs)-1], view.Change{Key: s.key, Rev: s.rev, Rec: s.rec, Gone: m.Gone, Seq: m.Seq})
	}
	// Every inbox the batch read counts, changed or not: one found already
	// written by an earlier attempt at this batch changed since before it.
	deltas := map[string]view.Counts{}
	for _, s := range b.staged {
		c, ok := s.rec.(Counted)
		if !ok {
			continue
		}
		held, addr := c.Counts()
		if !s.Live() {
			held = view.Counts{}
		}
		part := b.partOf(addr)
		d := deltas[part]
		d.Inboxes += held.Inboxes - s.heldAtLoad.Inboxes
		d.Messages += held.Messages - s.heldAtLoad.Messages
		deltas[part] = d
	}
	return runs, deltas
}
