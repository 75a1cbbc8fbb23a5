package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// a partition hand-over, bounded by the consumer's AckWait.
const tombstoneTTL = 10 * time.Minute

// viewStore is where views live: the KV bucket when serving, memory while
// rebuilding.
type viewStore interface {
	get(ctx context.Context, key string) (data []byte, rev uint64, err error) // data nil: absent
	put(ctx context.Context, key string, rev uint64, data []byte) error       // rev 0: must be absent
	tombstone(ctx context.Context, key string, rev uint64, data []byte) error
}

// kvStore is a viewStore on a JetStream KV bucket, with compare-and-swap.
type kvStore struct {
	kv      jetstream.KeyValue
	js      jetstream.JetStream
	subject string // "$KV.<bucket>."
}

func newKVStore(js jetstream.JetStream, kv jetstream.KeyValue) *kvStore {
	return &kvStore{kv: kv, js: js, subject: "$KV." + kv.Bucket() + "."}
}

func (s *kvStore) get(ctx context.Context, key string) ([]byte, uint64, error) {
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, unavailable(err)
	}
	return e.Value(), e.Revision(), nil
}

func (s *kvStore) put(ctx context.Context, key string, rev uint64, data []byte) error {
	var err error
	if rev == 0 {
		_, err = s.kv.Create(ctx, key, data)
	} else {
		_, err = s.kv.Update(ctx, key, data, rev)
	}
	if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return errConflict
	}
	if err != nil {
		return unavailable(err)
	}
	return nil
}

// tombstone replaces an entry with a value that expires by itself. KV has no
// "update with TTL", so this is the same compare-and-swap publish that Update
// makes, plus the Nats-TTL header.
func (s *kvStore) tombstone(ctx context.Context, key string, rev uint64, data []byte) error {
	_, err := s.js.PublishMsg(ctx, &nats.Msg{Subject: s.subject + key, Data: data},
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
	applied bool // already reflects this event or a later one
}

// tx applies one event: it loads entries and writes those that do not yet
// reflect the event's sequence.
type tx struct {
	ctx context.Context
	st  viewStore
	seq uint64
}

// load reads key into rec (left zero when absent).
func (t *tx) load(key string, rec record) (*entry, error) {
	data, rev, err := t.st.get(t.ctx, key)
	if err != nil {
		return nil, err
	}
	e := &entry{key: key, rev: rev}
	if data != nil {
		if err := json.Unmarshal(data, rec); err != nil {
			return nil, fmt.Errorf("view entry %s: %w", key, err)
		}
		e.found = true
		e.applied = rec.meta().Seq >= t.seq
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
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return t.st.put(t.ctx, e.key, e.rev, data)
}

// remove turns a present entry into a tombstone unless it already reflects
// this event.
func (t *tx) remove(e *entry) error {
	if e.applied || !e.found {
		return nil
	}
	data, err := json.Marshal(Meta{Seq: t.seq, Gone: true})
	if err != nil {
		return err
	}
	return t.st.tombstone(t.ctx, e.key, e.rev, data)
}
