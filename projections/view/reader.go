package view

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/broker"
	"tempmail/events"
)

// Reader reads a views bucket's entries, through the process's read cache
// once the watcher keeps it current. Entries that are absent or
// tombstoned are reported as errors of kind NotFound.
type Reader struct {
	kv     jetstream.KeyValue
	schema Schema
	hub    *Hub
	cache  *cache // nil until the watcher runs: without it the cache would go stale
}

// cacheBytes bounds the read cache of view entries: enough for the
// inboxes and list pages in use, and a fixed share of the memory the
// service keeps at rest (docs/BENCHMARKS.md, "Memory").
const cacheBytes = 16 << 20

// NewReader returns a reader of kv, whose entries are of schema, with an
// empty Hub and no cache yet (EnableCache).
func NewReader(kv jetstream.KeyValue, schema Schema) *Reader {
	return &Reader{kv: kv, schema: schema, hub: NewHub()}
}

// EnableCache gives the reader its cache. Only what sees every write to
// the views may (the watcher, or a single node's workers), as it
// starts: it keeps the cache current (Seen), which nothing else would.
func (r *Reader) EnableCache() { r.cache = newCache(cacheBytes) }

// Seen records a write to the views, at revision rev (value nil: a
// deletion), so that the cache never answers with what it replaced: what
// the watcher saw, or a single node's workers wrote.
func (r *Reader) Seen(key string, value []byte, rev uint64) {
	if r.cache != nil {
		r.cache.update(key, value, rev)
	}
}

// DropCache empties the read cache, which refills as reads come: for a
// process at rest, which need not hold what its busy minutes read.
func (r *Reader) DropCache() {
	if r.cache != nil {
		r.cache.clear()
	}
}

// Hub is the process's change hub, for long-polling.
func (r *Reader) Hub() *Hub { return r.hub }

// Get reads key into rec; what names the entry in a NotFound error.
// Records decoded before are shared from the cache
// (copied shallowly into rec): callers must treat what they read as
// read-only, which every reader of views does.
func (r *Reader) Get(ctx context.Context, key string, rec Record, what string) error {
	value, decoded, err := r.read(ctx, key)
	if err != nil {
		return err
	}
	if value == nil {
		return tempmail.Errorf(tempmail.NotFound, "%s not found", what)
	}
	dst := reflect.ValueOf(rec).Elem()
	if decoded != nil && reflect.TypeOf(decoded) == reflect.TypeOf(rec) {
		dst.Set(reflect.ValueOf(decoded).Elem())
	} else {
		if err := r.schema.Decode(value, rec); err != nil {
			return fmt.Errorf("view entry %s: %w", r.schema.Printable(key), err)
		}
		if r.cache != nil {
			kept := reflect.New(dst.Type())
			kept.Elem().Set(dst)
			r.cache.keepDecoded(key, value, kept.Interface().(Record))
		}
	}
	if rec.meta().Gone {
		return tempmail.Errorf(tempmail.NotFound, "%s not found", what)
	}
	return nil
}

// GetLatest reads key into rec from the bucket itself, past the cache, and
// returns its revision.
func (r *Reader) GetLatest(ctx context.Context, key string, rec Record, what string) (uint64, error) {
	value, rev, err := r.fetch(ctx, key)
	if err != nil {
		return 0, err
	}
	if value != nil {
		if err := r.schema.Decode(value, rec); err != nil {
			return 0, fmt.Errorf("view entry %s: %w", r.schema.Printable(key), err)
		}
	}
	if value == nil || rec.meta().Gone {
		return 0, tempmail.Errorf(tempmail.NotFound, "%s not found", what)
	}
	return rev, nil
}

// read returns a view entry's value (nil when absent), and its decoded
// record when the cache has one.
func (r *Reader) read(ctx context.Context, key string) ([]byte, Record, error) {
	if !broker.ValidKey(key) {
		return nil, nil, nil // a token or id no entry can have: absent, and not cached
	}
	var token *cached
	if r.cache != nil {
		e, ok, t := r.cache.lookup(key)
		if ok {
			return e.value, e.decoded, nil
		}
		token = t
	}
	value, rev, err := r.fetch(ctx, key)
	if token != nil {
		if err != nil {
			r.cache.forget(key, token)
		} else {
			r.cache.fill(key, token, value, rev)
		}
	}
	return value, nil, err
}

// fetch reads a view entry from the bucket: its value (nil when absent)
// and its revision.
func (r *Reader) fetch(ctx context.Context, key string) ([]byte, uint64, error) {
	if !broker.ValidKey(key) {
		return nil, 0, nil // a token or id no entry can have: absent
	}
	e, err := r.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, 0, nil
	case err != nil:
		return nil, 0, Unavailable(err)
	}
	return e.Value(), e.Revision(), nil
}

// WaitApplied waits until the views reflect the event ack describes, so that
// a command's effect is visible to the very next read. It waits on the hub;
// the occasional direct read guards against a watcher that fell behind.
func (r *Reader) WaitApplied(ctx context.Context, ack events.Ack) error {
	if ack.Seq == 0 || r.hub.Applied(ack.Partition) >= ack.Seq {
		return nil
	}
	ch, cancel := r.hub.Subscribe(PartitionTopic(ack.Partition))
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for r.hub.Applied(ack.Partition) < ack.Seq {
		select {
		case <-ch:
		case <-tick.C:
			var cp Checkpoint
			if err := r.Get(ctx, CheckpointKey(ack.Partition), &cp, "checkpoint"); err == nil {
				r.hub.Checkpoint(ack.Partition, cp.Seq)
			}
		case <-ctx.Done():
			return tempmail.Wrap(tempmail.Unavailable, ctx.Err(), "the change was stored but is not visible yet; try reading again shortly")
		}
	}
	return nil
}
