package view

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
)

// ErrConflict means another writer changed an entry between our read and our
// compare-and-swap; the batch is applied again from fresh reads.
var ErrConflict = errors.New("view entry changed concurrently")

// TombstoneTTL is how long a deleted entry's tombstone stays. It must outlast
// any window in which an older event can still be applied after a newer one:
// a partition hand-over, bounded by the consumer's AckWait (the engine's
// ackWait, six times over). Not much longer: until it goes, the views of what was
// deleted still take their room on disk.
const TombstoneTTL = time.Minute

// Store is where a projection keeps views: the KV bucket when serving
// (KV), memory and the new bucket while rebuilding (Bulk). It deals in
// records, so that a store can keep them decoded between batches.
type Store interface {
	// Get fills rec; found is false (rec untouched) when the key is
	// absent. rev is what a write of the entry must expect.
	Get(ctx context.Context, key string, rec Record) (rev uint64, found bool, err error)
	// Write stores a batch's changes in their order, each only if its
	// entry is still at its rev. ErrConflict says one was not: some of
	// the others may be stored, and the batch is applied again from fresh
	// reads (every entry records the sequence it reflects, so what is
	// stored is not applied twice).
	Write(ctx context.Context, ws []Change) error
}

// Change is one entry written by a batch: Rec, or a tombstone (Gone) that
// records Seq. A Blind change is written whatever the entry holds: the
// partition's own checkpoint and pending forget, which no one else writes
// but a worker it was just handed from.
type Change struct {
	Key   string
	Rev   uint64
	Rec   Record
	Gone  bool
	Seq   uint64
	Blind bool
}

// copyRecord sets *dst to a copy of src (same type) that shares nothing the
// appliers change in place.
func copyRecord(dst, src Record) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src.Clone()).Elem())
}

// KV is a Store on a JetStream KV bucket, with compare-and-swap.
// It keeps the records it read or wrote, decoded, with their revisions: a
// partition worker is normally the only writer of its entries, so most
// reads cost neither a round trip nor a decode. Should another writer have
// changed an entry (a hand-over), the compare-and-swap fails, the entry is
// forgotten, and the batch is applied again from fresh reads.
type KV struct {
	schema     Schema
	entries    *broker.Entries
	js         jetstream.JetStream
	subject    string // "$KV.<bucket>."
	known      map[string]known
	knownBytes int
	// observer, when set, is told of every change the bucket stored, in
	// the order stored (Observe).
	observer Observer
}

// An Observer is told of the changes a KV stored, for a process that is the
// views' only writer: what a watcher of the bucket would see of them,
// without the watcher's delivery.
type Observer interface {
	// Stored: the bucket stored value at key as revision rev. Changes
	// come in the order stored, once the bucket has acknowledged them.
	Stored(key string, value []byte, rev uint64)
	// Lost: changes may have been stored that Stored was not told of (a
	// write failed or gave up before every answer came); whatever the
	// observer keeps of the bucket may be stale.
	Lost()
}

type known struct {
	rev uint64
	rec Record
}

// maxKnownBytes bounds what a worker keeps (by Schema.Size); past it, it
// starts over. Only the small, hot entries are kept (Schema.Keep). It is what the partition's busy inboxes
// need, and every partition has its own, so it is kept small: what the
// workers hold stays in memory at rest.
const maxKnownBytes = 256 << 10

// NewKV returns the store of a worker on the bucket named bucket, whose
// last messages entries reads.
func NewKV(js jetstream.JetStream, entries *broker.Entries, bucket string, schema Schema) *KV {
	return &KV{schema: schema, entries: entries, js: js, subject: "$KV." + bucket + ".", known: map[string]known{}}
}

// Observe has o told of what every Write stores. Set it before the first.
func (s *KV) Observe(o Observer) { s.observer = o }

// lost tells the observer that a Write ended without every answer.
func (s *KV) lost() {
	if s.observer != nil {
		s.observer.Lost()
	}
}

func (s *KV) remember(key string, k known) {
	s.forget(key)
	if !s.schema.Keep(k.rec) {
		return
	}
	size := s.schema.Size(k.rec)
	if s.knownBytes+size > maxKnownBytes {
		s.known, s.knownBytes = map[string]known{}, 0
	}
	s.known[key] = k
	s.knownBytes += size
}

func (s *KV) forget(key string) {
	if k, ok := s.known[key]; ok {
		s.knownBytes -= s.schema.Size(k.rec)
		delete(s.known, key)
	}
}

// ForgetAll drops what the store keeps: after a conflict, when another
// writer may have changed anything.
func (s *KV) ForgetAll() { s.known, s.knownBytes = map[string]known{}, 0 }

// Get reads key into rec, from what the store keeps if it can.
func (s *KV) Get(ctx context.Context, key string, rec Record) (uint64, bool, error) {
	if k, ok := s.known[key]; ok && reflect.TypeOf(k.rec) == reflect.TypeOf(rec) {
		copyRecord(rec, k.rec)
		return k.rev, true, nil
	}
	value, rev, present, err := s.entries.Last(ctx, key)
	if err != nil {
		return 0, false, Unavailable(err)
	}
	if !present {
		return rev, false, nil
	}
	if err := s.schema.Decode(value, rec); err != nil {
		return 0, false, fmt.Errorf("view entry %s: %w", s.schema.Printable(key), err)
	}
	if !rec.meta().Gone {
		s.remember(key, known{rev: rev, rec: rec.Clone()})
	}
	return rev, true, nil
}

// Kept returns the record the store keeps for key, without reading the
// bucket: shared with the store, for reading only (engine.Peek).
func (s *KV) Kept(key string) (Record, bool) {
	k, ok := s.known[key]
	return k.rec, ok
}

// Write publishes every change at once, each conditional on its entry's
// revision, and waits for all the answers: one round trip for the batch.
// Messages of one connection are stored in the order they are sent, so
// the order of ws is the order readers can see them in.
func (s *KV) Write(ctx context.Context, ws []Change) error {
	futures := make([]jetstream.PubAckFuture, len(ws))
	values := make([][]byte, len(ws))
	for i, w := range ws {
		m, err := s.message(w)
		if err != nil {
			if i > 0 {
				s.lost()
			}
			return err
		}
		values[i] = m.Data
		if futures[i], err = s.js.PublishMsgAsync(m, jetstream.WithStallWait(5*time.Second)); err != nil {
			s.ForgetAll()
			s.lost()
			return Unavailable(err)
		}
	}
	var failed error
	uncertain := false // a write failed that may yet have been stored
	for i, f := range futures {
		w := ws[i]
		select {
		case ack := <-f.Ok():
			if w.Gone {
				s.forget(w.Key)
			} else {
				s.remember(w.Key, known{rev: ack.Sequence, rec: w.Rec})
			}
			if s.observer != nil {
				s.observer.Stored(w.Key, values[i], ack.Sequence)
			}
		case err := <-f.Err():
			s.forget(w.Key)
			conflict := broker.WrongLastSeq(err)
			uncertain = uncertain || !conflict
			if failed == nil || errors.Is(failed, ErrConflict) {
				failed = err
				if conflict {
					failed = ErrConflict
				}
			}
		case <-ctx.Done():
			s.ForgetAll()
			s.lost()
			return Unavailable(ctx.Err())
		}
	}
	if uncertain {
		s.lost()
	}
	if failed != nil && !errors.Is(failed, ErrConflict) {
		return Unavailable(failed)
	}
	return failed
}

// message is one change as the compare-and-swap publish KV's Update makes,
// and for a tombstone a value that expires by itself (KV has no "update
// with TTL").
func (s *KV) message(w Change) (*nats.Msg, error) {
	m := nats.NewMsg(s.subject + w.Key)
	if !w.Blind {
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(w.Rev, 10))
	}
	var err error
	if w.Gone {
		m.Data, err = json.Marshal(Meta{Seq: w.Seq, Gone: true})
		m.Header.Set("Nats-TTL", TombstoneTTL.String())
	} else {
		m.Data, err = s.schema.Encode(w.Rec)
	}
	return m, err
}

// Unavailable is broker.Unavailable for the view store.
func Unavailable(err error) error { return broker.Unavailable("the view store", err) }
