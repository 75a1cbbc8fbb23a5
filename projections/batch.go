package projections

import (
	"context"
	"slices"
	"time"

	"tempmail/events"
)

// A batch applies a run of one partition's events to the views in memory
// and then writes what they changed, each entry once: the inbox that three
// messages of the batch arrived in is written once, reflecting all three.
// Every entry records the sequence of the last event that changed it, and
// an event is applied to an entry only if the entry does not reflect it
// yet; so a batch written in part before a crash, or applied again by
// another worker during a hand-over, is applied again exactly.
//
// What the batch lets go (deleted messages, ended inboxes, moot events) is
// collected in forget, for the log to forget once the views are written
// (worker.go).
type batch struct {
	ctx   context.Context
	st    viewStore
	rules Rules
	// staged are the entries loaded or changed, by key; order is the
	// order they were first changed in.
	staged map[string]*staged
	order  []*staged
	forget events.Forget
	// deliveries are the outbound webhooks the batch's events call for;
	// globals reads the subscriptions to every inbox (nil: a rebuild,
	// which calls for none).
	deliveries []Delivery
	globals    func(context.Context) ([]WebhookRef, error)
	// partOf names the partition of an address, for the counts.
	partOf func(addr string) string
	// inboxLive asks the log whether an inbox whose entry is missing is
	// live all the same (events.Store.InboxLive); nil: a rebuild, whose
	// views hold every entry they wrote.
	inboxLive func(ctx context.Context, addr, inboxID string) (bool, error)
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

// Rules are what applying events needs beyond the events themselves.
type Rules struct {
	// MaxMessages caps an inbox: a message beyond it deletes the oldest.
	// 0: no cap.
	MaxMessages int
}

// loaded is what an entry held before the batch, for the counts.
type loaded struct {
	live  bool
	count int
}

// retry returns a batch for another attempt at b's events: it counts from
// what the entries held before b.
func (b *batch) retry(ctx context.Context, st viewStore) *batch {
	next := newBatch(ctx, st, b.rules, b.partOf)
	next.globals, next.inboxLive = b.globals, b.inboxLive
	next.before = map[string]loaded{}
	for k, s := range b.staged {
		next.before[k] = loaded{s.liveAtLoad, s.countAtLoad}
	}
	for k, l := range b.before {
		next.before[k] = l
	}
	return next
}

// staged is one entry as the batch has it.
type staged struct {
	key     string
	rec     record
	rev     uint64 // what a write must expect
	present bool   // the entry exists (live or a tombstone), in the store or in the batch
	changed bool
	// liveAtLoad and countAtLoad are the entry's state before the batch,
	// for the partition's counts.
	liveAtLoad  bool
	countAtLoad int
}

func newBatch(ctx context.Context, st viewStore, rules Rules, partOf func(string) string) *batch {
	return &batch{ctx: ctx, st: st, rules: rules, partOf: partOf, staged: map[string]*staged{}}
}

// tx is the application of one event within a batch.
type tx struct {
	*batch
	seq     uint64
	at      time.Time // when the event was stored
	subject string
}

func (b *batch) tx(seq uint64, subject string, at time.Time) *tx {
	if b.first == 0 {
		b.first = seq
	}
	b.last = max(b.last, seq)
	b.events++
	return &tx{batch: b, seq: seq, at: at, subject: subject}
}

// load returns the batch's record of key (a zero one when absent), read
// from the store the first time.
func load[R any, P interface {
	*R
	record
}](t *tx, key string) (P, *staged, error) {
	if s, ok := t.staged[key]; ok {
		return s.rec.(P), s, nil
	}
	p := P(new(R))
	rev, found, err := t.st.get(t.ctx, key, p)
	if err != nil {
		return nil, nil, err
	}
	s := &staged{key: key, rec: p, rev: rev, present: found}
	s.liveAtLoad = found && !p.meta().Gone
	if in, ok := any(p).(*Inbox); ok && s.liveAtLoad {
		s.countAtLoad = in.Count
	}
	if l, ok := t.before[key]; ok {
		s.liveAtLoad, s.countAtLoad = l.live, l.count
	}
	t.staged[key] = s
	return p, s, nil
}

// live reports whether an entry exists and is not a tombstone.
func live(s *staged) bool { return s.present && !s.rec.meta().Gone }

// applied reports whether an entry already reflects this event (or a later
// one): then the event leaves it alone.
func (t *tx) applied(s *staged) bool {
	if !s.present {
		return false
	}
	seq := s.rec.meta().Seq
	if t.strict && seq > t.seq {
		t.behind = true
	}
	return seq >= t.seq
}

// save marks an entry changed by this event, unless it reflects it already.
func (t *tx) save(s *staged) {
	if t.applied(s) {
		return
	}
	m := s.rec.meta()
	m.Seq, m.Gone = t.seq, false
	t.touch(s)
}

// remove turns an entry into a tombstone, unless it is absent or reflects
// this event already.
func (t *tx) remove(s *staged) {
	if t.applied(s) || !s.present {
		return
	}
	m := s.rec.meta()
	m.Seq, m.Gone = t.seq, true
	t.touch(s)
}

func (t *tx) touch(s *staged) {
	s.present = true
	if !s.changed {
		s.changed = true
		t.order = append(t.order, s)
	}
}

// moot forgets the event itself: nothing in the views shows it (a read of
// a message already deleted, a subscription to an inbox already gone).
func (t *tx) moot() { t.forget.Seqs = append(t.forget.Seqs, t.seq) }

// changes are the batch's writes, in the order readers may see them
// (writeRank), and how they change the counts of each partition.
func (b *batch) changes() ([]change, map[string]Counts) {
	order := slices.Clone(b.order)
	rank := func(s *staged) int { return writeRank(s.key, s.rec.meta().Gone) }
	slices.SortStableFunc(order, func(x, y *staged) int { return rank(x) - rank(y) })
	var ws []change
	for _, s := range order {
		m := s.rec.meta()
		ws = append(ws, change{key: s.key, rev: s.rev, rec: s.rec, gone: m.Gone, seq: m.Seq})
	}
	// Every inbox the batch read counts, changed or not: one found already
	// written by an earlier attempt at this batch changed since before it.
	deltas := map[string]Counts{}
	for _, s := range b.staged {
		if in, ok := s.rec.(*Inbox); ok {
			liveNow, count := live(s), 0
			if liveNow {
				count = in.Count
			}
			part := b.partOf(in.Address)
			d := deltas[part]
			d.Inboxes += b2i(liveNow) - b2i(s.liveAtLoad)
			d.Messages += int64(count - s.countAtLoad)
			deltas[part] = d
		}
	}
	return ws, deltas
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
