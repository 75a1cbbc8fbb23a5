package view

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Bulk is the Store of a rebuild: one writer on a bucket no
// one reads yet, so there is nothing to race with. It keeps the records it
// used last in memory, decoded, within maxBytes; those it lets go are
// written out as it goes (asynchronously), and read back if an event needs
// them again. So a rebuild holds what its working set needs, not every
// view entry of the store: its memory does not grow with the log.
//
// A tombstone simply removes the entry: no older event can follow in a
// replay. Nor is an event ever applied twice or abandoned half-way (a failed
// replay is thrown away), so records are handed out and taken back without
// the copies KV makes: a reader's changes are what it writes next.
type Bulk struct {
	schema   Schema
	kv       jetstream.KeyValue
	js       jetstream.JetStream
	prefix   string // "$KV.<bucket>."
	maxBytes int

	hot   map[string]*list.Element // of *hotEntry, most recently used first
	order *list.List
	bytes int // estimated size of the hot records

	// written holds what was written out and not yet acknowledged, so that
	// a read meanwhile gets it from here (nil: deleted); pending are those
	// writes.
	written map[string][]byte
	pending []jetstream.PubAckFuture
	// pendingBytes is what the pending writes hold: written keeps a copy
	// of each, and the server holds them until it has stored them.
	pendingBytes int
	keys         int // entries written in all (Keys)
	// out has every key written out: most keys an event reads are new (a
	// new message's), and a key never written out is absent, with no need
	// to ask the bucket.
	out *bloom
	// TooLarge are entries that became larger than a NATS message may be
	// (MaxEntryBytes), by the sequence of the event that last changed
	// each: not written, that event set aside (the engine's replay).
	TooLarge map[string]uint64
	// Skip are events set aside for making an entry too large in an
	// earlier round; the store keeps them for the replay.
	Skip map[uint64]bool
}

type hotEntry struct {
	key     string
	rec     Record
	size    int
	dirty   bool // changed since it was last written out
	written bool // the bucket may hold it: a tombstone must delete it there
}

// MaxEntryBytes is the largest view entry a rebuild writes: NATS's message
// limit (1 MiB), less room for the headers.
const MaxEntryBytes = 1<<20 - 4<<10

// maxPendingWrites and maxPendingBytes bound the writes awaiting their
// acknowledgement: by count, and by what they hold, which the bound on
// count alone let reach 13.5 MiB of encoded entries (inboxes' closed
// pages) in a rebuild of 1,000,000 events, live beside its working set.
const (
	maxPendingWrites = 4096
	maxPendingBytes  = 4 << 20
)

// NewBulk makes the store of a replay of about events events into kv,
// which keeps at most maxBytes of records in memory (by Schema.Size).
func NewBulk(js jetstream.JetStream, kv jetstream.KeyValue, maxBytes int, events uint64, schema Schema) *Bulk {
	return &Bulk{schema: schema, kv: kv, js: js, prefix: "$KV." + kv.Bucket() + ".", maxBytes: maxBytes,
		hot: map[string]*list.Element{}, order: list.New(), written: map[string][]byte{},
		out: newBloom(2 * max(events, 1<<16))}
}

// Get reads key into rec: from memory, what was written and not yet
// acknowledged, or the bucket.
func (s *Bulk) Get(ctx context.Context, key string, rec Record) (uint64, bool, error) {
	if el, ok := s.hot[key]; ok {
		s.order.MoveToFront(el)
		reflect.ValueOf(rec).Elem().Set(reflect.ValueOf(el.Value.(*hotEntry).rec).Elem())
		return 1, true, nil
	}
	value, ok := s.written[key]
	if ok && value == nil {
		return 0, false, nil // deleted; the bucket may not know yet
	}
	if !ok {
		if !s.out.has(key) {
			return 0, false, nil
		}
		e, err := s.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		value = e.Value()
	}
	if err := s.schema.Decode(value, rec); err != nil {
		return 0, false, fmt.Errorf("view entry %s: %w", s.schema.Printable(key), err)
	}
	kept := reflect.New(reflect.TypeOf(rec).Elem())
	kept.Elem().Set(reflect.ValueOf(rec).Elem())
	if err := s.keep(ctx, key, kept.Interface().(Record), false, true); err != nil {
		return 0, false, err
	}
	return 1, true, nil
}

// Write keeps the changes; they are written out as they are let go, or
// by Flush.
func (s *Bulk) Write(ctx context.Context, ws []Change) error {
	for _, w := range ws {
		var err error
		if w.Gone {
			err = s.tombstone(ctx, w.Key)
		} else {
			err = s.Put(ctx, w.Key, w.Rec)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Put makes rec the entry of key.
func (s *Bulk) Put(ctx context.Context, key string, rec Record) error {
	// An entry let go since it was read may be in the bucket.
	written := s.out.has(key)
	if el, ok := s.hot[key]; ok {
		written = el.Value.(*hotEntry).written
	}
	return s.keep(ctx, key, rec, true, written)
}

// keep makes rec the hot record of key, and lets the least recently used
// go while the hot records take more than maxBytes.
func (s *Bulk) keep(ctx context.Context, key string, rec Record, dirty, written bool) error {
	if el, ok := s.hot[key]; ok {
		e := el.Value.(*hotEntry)
		s.bytes -= e.size
		e.rec, e.size, e.dirty, e.written = rec, s.schema.Size(rec), e.dirty || dirty, e.written || written
		s.bytes += e.size
		s.order.MoveToFront(el)
	} else {
		e := &hotEntry{key: key, rec: rec, size: s.schema.Size(rec), dirty: dirty, written: written}
		s.hot[key] = s.order.PushFront(e)
		s.bytes += e.size
	}
	for s.bytes > s.maxBytes && s.order.Len() > 1 {
		el := s.order.Back()
		e := el.Value.(*hotEntry)
		if e.dirty {
			if err := s.writeOut(ctx, e.key, e.rec); err != nil {
				return err
			}
		}
		s.order.Remove(el)
		delete(s.hot, e.key)
		s.bytes -= e.size
	}
	return nil
}

func (s *Bulk) tombstone(ctx context.Context, key string) error {
	written := s.out.has(key) // the bucket may hold it
	if el, ok := s.hot[key]; ok {
		e := el.Value.(*hotEntry)
		written = e.written
		s.order.Remove(el)
		delete(s.hot, key)
		s.bytes -= e.size
	}
	if !written {
		return nil
	}
	// Until the purge is acknowledged, a read must not ask the bucket,
	// which may still answer with what it held.
	s.written[key] = nil
	m := nats.NewMsg(s.prefix + key)
	m.Header.Set("KV-Operation", "PURGE")
	m.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	return s.publish(ctx, m, nil)
}

// writeOut writes one record out.
func (s *Bulk) writeOut(ctx context.Context, key string, rec Record) error {
	data, err := s.schema.Encode(rec)
	if err != nil {
		return err
	}
	if len(data) > MaxEntryBytes {
		if s.TooLarge == nil {
			s.TooLarge = map[string]uint64{}
		}
		s.TooLarge[key] = rec.meta().Seq
		return nil
	}
	s.written[key] = data
	s.out.add(key)
	s.keys++
	return s.publish(ctx, &nats.Msg{Subject: s.prefix + key, Data: data}, data)
}

func (s *Bulk) publish(ctx context.Context, m *nats.Msg, data []byte) error {
	f, err := s.js.PublishMsgAsync(m, jetstream.WithStallWait(30*time.Second))
	if err != nil {
		return err
	}
	s.pending = append(s.pending, f)
	s.pendingBytes += len(m.Subject) + len(data)
	if len(s.pending) >= maxPendingWrites || s.pendingBytes >= maxPendingBytes {
		return s.settle(ctx)
	}
	return nil
}

// settle waits until every write so far is acknowledged.
func (s *Bulk) settle(ctx context.Context) error {
	for _, f := range s.pending {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("write rebuilt views: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.pending, s.pendingBytes = s.pending[:0], 0
	clear(s.written)
	return nil
}

// Flush writes out every record still held and waits for all the writes.
func (s *Bulk) Flush(ctx context.Context) error {
	for el := s.order.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*hotEntry); e.dirty {
			if err := s.writeOut(ctx, e.key, e.rec); err != nil {
				return err
			}
			e.dirty, e.written = false, true
		}
	}
	return s.settle(ctx)
}

// Keys is how many entry writes the store made (one let go and used again
// is written again).
func (s *Bulk) Keys() int { return s.keys }
