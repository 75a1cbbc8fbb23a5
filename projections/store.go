package projections

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

// errConflict means another writer changed an entry between our read and our
// compare-and-swap; the batch is applied again from fresh reads.
var errConflict = errors.New("view entry changed concurrently")

// tombstoneTTL is how long a deleted entry's tombstone stays. It must outlast
// any window in which an older event can still be applied after a newer one:
// a partition hand-over, bounded by the consumer's AckWait (ackWait, six
// times over). Not much longer: until it goes, the views of what was
// deleted still take their room on disk.
const tombstoneTTL = time.Minute

// viewStore is where a projection keeps views: the KV bucket when serving,
// memory and the new bucket while rebuilding. It deals in records, so that
// a store can keep them decoded between batches.
type viewStore interface {
	// get fills rec; found is false (rec untouched) when the key is
	// absent. rev is what a write of the entry must expect.
	get(ctx context.Context, key string, rec record) (rev uint64, found bool, err error)
	// write stores a batch's changes in their order, each only if its
	// entry is still at its rev. errConflict says one was not: some of
	// the others may be stored, and the batch is applied again from fresh
	// reads (every entry records the sequence it reflects, so what is
	// stored is not applied twice).
	write(ctx context.Context, ws []change) error
}

// change is one entry written by a batch: rec, or a tombstone (gone) that
// records seq. A blind change is written whatever the entry holds: the
// partition's own checkpoint and pending forget, which no one else writes
// but a worker it was just handed from.
type change struct {
	key   string
	rev   uint64
	rec   record
	gone  bool
	seq   uint64
	blind bool
}

// copyRecord sets *dst to a copy of src (same type) that shares nothing the
// appliers change in place.
func copyRecord(dst, src record) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src.clone()).Elem())
}

// kvStore is a viewStore on a JetStream KV bucket, with compare-and-swap.
// It keeps the records it read or wrote, decoded, with their revisions: a
// partition worker is normally the only writer of its entries, so most
// reads cost neither a round trip nor a decode. Should another writer have
// changed an entry (a hand-over), the compare-and-swap fails, the entry is
// forgotten, and the batch is applied again from fresh reads.
type kvStore struct {
	entries    *broker.Entries
	js         jetstream.JetStream
	subject    string // "$KV.<bucket>."
	known      map[string]known
	knownBytes int
}

type known struct {
	rev uint64
	rec record
}

// maxKnownBytes bounds what a worker keeps (by recordSize); past it, it
// starts over. Only the small, hot entries are kept (inboxes, addresses,
// the domain list, list pages). It is what the partition's busy inboxes
// need, and every partition has its own, so it is kept small: what the
// workers hold stays in memory at rest.
const maxKnownBytes = 256 << 10

func keepable(rec record) bool {
	switch rec.(type) {
	case *Inbox, *Address, *Domain, *DomainList, *DomainIDs, *Page, *WebhookList, *TagRef, *Pending,
		*Tenant, *TenantUsage, *TenantList, *TenantPage:
		return true
	}
	return false
}

func newKVStore(js jetstream.JetStream, entries *broker.Entries, bucket string) *kvStore {
	return &kvStore{entries: entries, js: js, subject: "$KV." + bucket + ".", known: map[string]known{}}
}

func (s *kvStore) remember(key string, k known) {
	s.forget(key)
	if !keepable(k.rec) {
		return
	}
	size := recordSize(k.rec)
	if s.knownBytes+size > maxKnownBytes {
		s.known, s.knownBytes = map[string]known{}, 0
	}
	s.known[key] = k
	s.knownBytes += size
}

func (s *kvStore) forget(key string) {
	if k, ok := s.known[key]; ok {
		s.knownBytes -= recordSize(k.rec)
		delete(s.known, key)
	}
}

// forgetAll drops what the store keeps: after a conflict, when another
// writer may have changed anything.
func (s *kvStore) forgetAll() { s.known, s.knownBytes = map[string]known{}, 0 }

func (s *kvStore) get(ctx context.Context, key string, rec record) (uint64, bool, error) {
	if k, ok := s.known[key]; ok && reflect.TypeOf(k.rec) == reflect.TypeOf(rec) {
		copyRecord(rec, k.rec)
		return k.rev, true, nil
	}
	value, rev, present, err := s.entries.Last(ctx, key)
	if err != nil {
		return 0, false, unavailable(err)
	}
	if !present {
		return rev, false, nil
	}
	if err := decode(value, rec); err != nil {
		return 0, false, fmt.Errorf("view entry %s: %w", printable(key), err)
	}
	if !rec.meta().Gone {
		s.remember(key, known{rev: rev, rec: rec.clone()})
	}
	return rev, true, nil
}

// write publishes every change at once, each conditional on its entry's
// revision, and waits for all the answers: one round trip for the batch.
// Messages of one connection are stored in the order they are sent, so
// the order of ws is the order readers can see them in.
func (s *kvStore) write(ctx context.Context, ws []change) error {
	futures := make([]jetstream.PubAckFuture, len(ws))
	for i, w := range ws {
		m, err := s.message(w)
		if err != nil {
			return err
		}
		if futures[i], err = s.js.PublishMsgAsync(m, jetstream.WithStallWait(5*time.Second)); err != nil {
			s.forgetAll()
			return unavailable(err)
		}
	}
	var failed error
	for i, f := range futures {
		w := ws[i]
		select {
		case ack := <-f.Ok():
			if w.gone {
				s.forget(w.key)
			} else {
				s.remember(w.key, known{rev: ack.Sequence, rec: w.rec})
			}
		case err := <-f.Err():
			s.forget(w.key)
			if failed == nil || errors.Is(failed, errConflict) {
				failed = err
				if broker.WrongLastSeq(err) {
					failed = errConflict
				}
			}
		case <-ctx.Done():
			s.forgetAll()
			return unavailable(ctx.Err())
		}
	}
	if failed != nil && !errors.Is(failed, errConflict) {
		return unavailable(failed)
	}
	return failed
}

// message is one change as the compare-and-swap publish KV's Update makes,
// and for a tombstone a value that expires by itself (KV has no "update
// with TTL").
func (s *kvStore) message(w change) (*nats.Msg, error) {
	m := nats.NewMsg(s.subject + w.key)
	if !w.blind {
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(w.rev, 10))
	}
	var err error
	if w.gone {
		m.Data, err = json.Marshal(Meta{Seq: w.seq, Gone: true})
		m.Header.Set("Nats-TTL", tombstoneTTL.String())
	} else {
		m.Data, err = encode(w.rec)
	}
	return m, err
}

// unavailable is broker.Unavailable for the view store.
func unavailable(err error) error { return broker.Unavailable("the view store", err) }
