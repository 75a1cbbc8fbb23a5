package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
)

// errConflict means another writer changed an entry between our read and our
// compare-and-swap; the event is applied again from fresh reads.
var errConflict = errors.New("view entry changed concurrently")

// tombstoneTTL is how long a deleted entry's tombstone stays. It must outlast
// any window in which an older event can still be applied after a newer one:
// a partition hand-over, bounded by the consumer's AckWait (ackWait, six
// times over). Not much longer: until it goes, the views of what was
// deleted still take their room on disk.
const tombstoneTTL = time.Minute

// viewStore is where a projection keeps views: the KV bucket when serving,
// memory while rebuilding. It deals in records, so that a store can keep
// them decoded between events.
type viewStore interface {
	// get fills rec; found is false (rec untouched) when the key is absent.
	get(ctx context.Context, key string, rec record) (rev uint64, found bool, err error)
	// put writes rec if the entry is still at rev (0: absent).
	put(ctx context.Context, key string, rev uint64, rec record) error
	// tombstone replaces the entry at rev by a short-lived tombstone.
	tombstone(ctx context.Context, key string, rev uint64, seq uint64) error
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
// forgotten, and the event is applied again from a fresh read.
type kvStore struct {
	kv         jetstream.KeyValue
	js         jetstream.JetStream
	subject    string // "$KV.<bucket>."
	known      map[string]known
	knownBytes int
}

type known struct {
	rev uint64
	rec record // nil: a tombstone
}

// maxKnownBytes bounds what a worker keeps (by recordSize); past it, it
// starts over. Only the small, hot entries are kept (inboxes, addresses,
// the domain list, list pages): messages are read again rarely. It is what
// the partition's busy inboxes need, and every partition has its own, so
// it is kept small: what the workers hold stays in memory at rest.
const maxKnownBytes = 256 << 10

func keepable(rec record) bool {
	switch rec.(type) {
	case *Inbox, *Address, *Domains, *Page, *Removals, *WebhookList:
		return true
	}
	return false
}

func newKVStore(js jetstream.JetStream, kv jetstream.KeyValue) *kvStore {
	return &kvStore{kv: kv, js: js, subject: "$KV." + kv.Bucket() + ".", known: map[string]known{}}
}

func (s *kvStore) remember(key string, k known) {
	if !keepable(k.rec) {
		return
	}
	if old, ok := s.known[key]; ok && old.rec != nil {
		s.knownBytes -= recordSize(old.rec)
	}
	if size := recordSize(k.rec); s.knownBytes+size > maxKnownBytes {
		s.known, s.knownBytes = map[string]known{}, 0
	}
	s.known[key] = k
	s.knownBytes += recordSize(k.rec)
}

func (s *kvStore) forget(key string) {
	if k, ok := s.known[key]; ok {
		if k.rec != nil {
			s.knownBytes -= recordSize(k.rec)
		}
		delete(s.known, key)
	}
}

func (s *kvStore) get(ctx context.Context, key string, rec record) (uint64, bool, error) {
	if k, ok := s.known[key]; ok && k.rec != nil && reflect.TypeOf(k.rec) == reflect.TypeOf(rec) {
		copyRecord(rec, k.rec)
		return k.rev, true, nil
	}
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, unavailable(err)
	}
	if err := decode(e.Value(), rec); err != nil {
		return 0, false, fmt.Errorf("view entry %s: %w", printable(key), err)
	}
	if !rec.meta().Gone {
		s.remember(key, known{rev: e.Revision(), rec: rec.clone()})
	}
	return e.Revision(), true, nil
}

func (s *kvStore) put(ctx context.Context, key string, rev uint64, rec record) error {
	data, err := encode(rec)
	if err != nil {
		return err
	}
	var newRev uint64
	if rev == 0 {
		newRev, err = s.kv.Create(ctx, key, data)
	} else {
		newRev, err = s.kv.Update(ctx, key, data, rev)
	}
	if err != nil {
		s.forget(key)
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return errConflict
		}
		return unavailable(err)
	}
	s.remember(key, known{rev: newRev, rec: rec.clone()})
	return nil
}

// tombstone replaces an entry with a value that expires by itself. KV has no
// "update with TTL", so this is the same compare-and-swap publish that Update
// makes, plus the Nats-TTL header.
func (s *kvStore) tombstone(ctx context.Context, key string, rev uint64, seq uint64) error {
	s.forget(key)
	data, err := json.Marshal(Meta{Seq: seq, Gone: true})
	if err != nil {
		return err
	}
	_, err = s.js.PublishMsg(ctx, &nats.Msg{Subject: s.subject + key, Data: data},
		jetstream.WithExpectLastSequencePerSubject(rev), jetstream.WithMsgTTL(tombstoneTTL))
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return errConflict
	}
	if err != nil {
		return unavailable(err)
	}
	return nil
}

func unavailable(err error) error {
	return tempmail.Wrap(tempmail.Unavailable, err, "the view store is unavailable; try again")
}

// entry is a view entry loaded within one event's application.
type entry struct {
	key     string
	rev     uint64
	found   bool // present, possibly as a tombstone
	live    bool // present and not a tombstone
	applied bool // already reflects this event or a later one
	counted *int64
}

// tx applies one event: it loads entries and writes those that do not yet
// reflect the event's sequence.
type tx struct {
	ctx   context.Context
	st    viewStore
	seq   uint64
	ended bool // the event ended a live inbox
	// delta is what the writes made so far changed in the partition's
	// counts: an inbox or message entry written where none was live is
	// one more, one made a tombstone is one fewer.
	delta Counts
}

// load reads key into rec (left zero when absent).
func (t *tx) load(key string, rec record) (*entry, error) {
	rev, found, err := t.st.get(t.ctx, key, rec)
	if err != nil {
		return nil, err
	}
	e := &entry{key: key, rev: rev, found: found}
	e.live = found && !rec.meta().Gone
	e.applied = found && rec.meta().Seq >= t.seq
	switch rec.(type) {
	case *Inbox:
		e.counted = &t.delta.Inboxes
	case *Message:
		e.counted = &t.delta.Messages
	}
	return e, nil
}

// live reports whether a loaded entry exists and is not a tombstone.
func live(e *entry, rec record) bool { return e.found && !rec.meta().Gone }

// save writes rec unless the entry already reflects this event.
func (t *tx) save(e *entry, rec record) error {
	if e.applied {
		return nil
	}
	rec.meta().Seq = t.seq
	rec.meta().Gone = false
	if err := t.st.put(t.ctx, e.key, e.rev, rec); err != nil {
		return err
	}
	if e.counted != nil && !e.live {
		*e.counted++
	}
	return nil
}

// remove turns a present entry into a tombstone unless it already reflects
// this event.
func (t *tx) remove(e *entry) error {
	if e.applied || !e.found {
		return nil
	}
	if err := t.st.tombstone(t.ctx, e.key, e.rev, t.seq); err != nil {
		return err
	}
	if e.counted != nil && e.live {
		*e.counted--
	}
	return nil
}
