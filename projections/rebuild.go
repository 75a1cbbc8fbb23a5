package projections

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/events"
)

// RebuildResult describes a finished rebuild.
type RebuildResult struct {
	Generation int           // the generation now current
	Events     uint64        // events replayed
	Keys       int           // view entry writes (one let go and used again is written again)
	Took       time.Duration // replay and write, without the switch
}

// Rebuild replays the whole event stream into a new views generation and
// makes it current only once it is complete; until then readers keep the old
// one, and an interrupted rebuild leaves it untouched. Processes serving the
// old generation may run meanwhile (in a cluster they must: the rebuild
// needs a majority of the nodes): what they apply after the replay's end,
// the new generation's consumers apply again from its checkpoints, and once
// the switch has removed the old generation they can no longer read the
// views, and must be started again.
func Rebuild(ctx context.Context, js jetstream.JetStream, store *events.Store, opts Options) (RebuildResult, error) {
	start := time.Now()
	if opts.Replicas == 0 {
		opts.Replicas = 1
	}
	meta, err := metaKV(ctx, js, opts.Replicas)
	if err != nil {
		return RebuildResult{}, err
	}
	oldGen, rev, _, err := currentGeneration(ctx, meta)
	if err != nil {
		return RebuildResult{}, err
	}
	gen := oldGen + 1
	// An event that makes an entry too large shows only once the entry
	// is written: the replay is made again without it, set aside, as a
	// worker would have set it aside (a few rounds at most: such events
	// are not what the service writes).
	skip := map[uint64]bool{}
	var st *rebuildStore
	var n uint64
	for round := 0; ; round++ {
		// A bucket of this generation can only be a leftover of an
		// interrupted rebuild (or of the round before): start it afresh.
		if err := js.DeleteKeyValue(ctx, bucketName(gen)); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
			return RebuildResult{}, fmt.Errorf("remove unfinished %s: %w", bucketName(gen), err)
		}
		kv, err := viewsBucket(ctx, js, gen, opts.Replicas)
		if err != nil {
			return RebuildResult{}, err
		}
		last, err := store.LastEventSeq(ctx)
		if err != nil {
			return RebuildResult{}, err
		}
		st = newRebuildStore(js, kv, rebuildCacheBytes, last)
		st.skip = skip
		if n, err = replay(ctx, store, st, opts.Rules, rebuildBatch); err != nil {
			return RebuildResult{}, err
		}
		if err := st.flush(ctx); err != nil {
			return RebuildResult{}, err
		}
		if len(st.tooLarge) == 0 {
			break
		}
		if round == maxRebuildRounds {
			return RebuildResult{}, fmt.Errorf("replay: view entries still too large after setting aside %d events: %v", len(skip), slices.Collect(maps.Keys(st.tooLarge)))
		}
		for key, seq := range st.tooLarge {
			opts.Logger.Warn("rebuild: an event makes a view entry larger than NATS takes; replaying again without it", "entry", printable(key), "seq", seq)
			skip[seq] = true
		}
	}
	res := RebuildResult{Generation: gen, Events: n, Keys: st.keys, Took: time.Since(start)}

	// The switch: one compare-and-swap, so a concurrent rebuild cannot be
	// silently overwritten; then the format of what is now current.
	if _, err := meta.Update(ctx, generationKey, []byte(strconv.Itoa(gen)), rev); err != nil {
		return RebuildResult{}, fmt.Errorf("switch to views generation %d: %w", gen, err)
	}
	if _, err := meta.Put(ctx, formatKey, []byte(viewsFormat)); err != nil {
		return RebuildResult{}, fmt.Errorf("record views format: %w", err)
	}
	if err := store.Flush(ctx, "KV_"+metaBucket); err != nil {
		return RebuildResult{}, fmt.Errorf("record views generation %d: %w", gen, err)
	}
	// The old generation is no longer read; its consumers go when a server
	// next starts (Views.Start), its bucket now.
	if err := js.DeleteKeyValue(ctx, bucketName(oldGen)); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		opts.Logger.Warn("rebuild: could not remove the old views bucket", "bucket", bucketName(oldGen), "err", err)
	}
	return res, nil
}

// maxRebuildRounds bounds the replays a rebuild makes again, each without
// events that made entries too large.
const maxRebuildRounds = 4

// rebuildBatch is how many events a rebuild applies between writes: the
// same coalescing the workers get from their batches, on a larger scale.
const rebuildBatch = 1024

// replay applies every event in the stream, in order, to st, and records the
// per-partition checkpoints a live projection would have, with what the log
// is still to forget of what the replay let go (the live workers do that
// forgetting, unless there is more than maxPendingForget of it).
func replay(ctx context.Context, store *events.Store, st *rebuildStore, rules Rules, batchEvents int) (uint64, error) {
	last, err := store.LastEventSeq(ctx)
	if err != nil || last == 0 {
		return 0, err
	}
	// Views hold no content, so the replay reads events only.
	cons, err := store.Stream().OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{events.EventFilter}})
	if err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	it, err := cons.Messages()
	if err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()

	checkpoints := map[string]*Checkpoint{}
	pending := map[string]*Pending{}
	asides := map[string]*SetAside{} // events no view can apply, set aside as the workers do
	b := newBatch(ctx, st, rules, store.PartitionOfAddress)
	flush := func() error {
		ws, deltas := b.changes()
		for part, d := range deltas {
			checkpoints[part].Counts.add(d)
		}
		b = newBatch(ctx, st, rules, store.PartitionOfAddress)
		return st.write(ctx, ws)
	}
	var n uint64
	for {
		msg, err := it.Next()
		if err != nil {
			return n, fmt.Errorf("replay: %w", err)
		}
		md, err := msg.Metadata()
		if err != nil {
			return n, fmt.Errorf("replay: %w", err)
		}
		seq := md.Sequence.Stream
		part := events.PartitionOf(msg.Subject())
		if checkpoints[part] == nil {
			checkpoints[part] = &Checkpoint{Counts: &Counts{}}
		}
		before := b.forget
		p, at, err := events.Decode(msg.Data())
		switch {
		case err == nil && st.skip[seq]:
			b.tx(seq, msg.Subject(), at)
			err = fmt.Errorf("%w: %s", errTooLarge, p.EventType())
		case err == nil:
			err = b.apply(seq, msg.Subject(), at, p)
		}
		switch {
		case err == nil:
		case p == nil || errors.Is(err, errNoView) || errors.Is(err, errTooLarge):
			// Nothing of it applied: set aside, and the replay goes on.
			if asides[part] == nil {
				asides[part] = &SetAside{}
			}
			kind := "undecodable"
			if p != nil {
				kind = string(p.EventType())
			}
			asides[part].add(AsideEvent{Seq: seq, Type: kind, Error: bounded(err.Error(), asideErrorBytes), At: time.Now().UTC()})
		default:
			return n, fmt.Errorf("replay event %d: %w", seq, err)
		}
		if f := forgotten(before, b.forget); !f.Empty() {
			if pending[part] == nil {
				pending[part] = &Pending{}
			}
			pending[part].Forget.Add(f)
			pending[part].UpTo = seq
		}
		checkpoints[part].Seq = seq
		n++
		if b.events >= batchEvents || seq >= last {
			if err := flush(); err != nil {
				return n, err
			}
			if err := forgetNow(ctx, store, pending); err != nil {
				return n, err
			}
		}
		if seq >= last {
			break
		}
	}
	for part, p := range pending {
		p.Seq = p.UpTo
		if err := st.put(ctx, pendingKey(part), 0, p); err != nil {
			return n, err
		}
	}
	for part, a := range asides {
		if err := st.put(ctx, asideKey(part), 0, a); err != nil {
			return n, err
		}
	}
	for part, cp := range checkpoints {
		if err := st.put(ctx, checkpointKey(part), 0, cp); err != nil {
			return n, err
		}
	}
	return n, nil
}

// maxPendingForget bounds what a partition's pending forget holds at the
// end of a replay: it is one view entry, and a replay of a log holding much
// the views let go (a rebuild with a lower --max-messages-per-inbox, or a
// log written with no projection to forget) would otherwise make it larger
// than a NATS message may be.
const maxPendingForget = 1024

// forgetNow makes the log forget what a partition's pending forget holds,
// once it passes maxPendingForget, as the live workers would have: what
// the replay let go by the log's own events and the rules it was given.
func forgetNow(ctx context.Context, store *events.Store, pending map[string]*Pending) error {
	for part, p := range pending {
		f := p.Forget
		if f.Len() < maxPendingForget {
			continue
		}
		if err := store.Forget(ctx, f, nil); err != nil {
			return fmt.Errorf("replay: forget what the views let go: %w", err)
		}
		delete(pending, part)
	}
	return nil
}

// forgotten is what after adds to before (after grew from before by
// appending).
func forgotten(before, after events.Forget) events.Forget {
	return events.Forget{Messages: after.Messages[len(before.Messages):], Seqs: after.Seqs[len(before.Seqs):],
		Inboxes: after.Inboxes[len(before.Inboxes):], Claims: after.Claims[len(before.Claims):],
		Tenants: after.Tenants[len(before.Tenants):], Domains: after.Domains[len(before.Domains):]}
}

// rebuildStore is the viewStore of a rebuild: one writer on a bucket no
// one reads yet, so there is nothing to race with. It keeps the records it
// used last in memory, decoded, within maxBytes; those it lets go are
// written out as it goes (asynchronously), and read back if an event needs
// them again. So a rebuild holds what its working set needs, not every
// view entry of the store: its memory does not grow with the log.
//
// A tombstone simply removes the entry: no older event can follow in a
// replay. Nor is an event ever applied twice or abandoned half-way (a failed
// replay is thrown away), so records are handed out and taken back without
// the copies kvStore makes: a reader's changes are what it writes next.
type rebuildStore struct {
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
	keys    int // entries written in all
	// out has every key written out: most keys an event reads are new (a
	// new message's), and a key never written out is absent, with no need
	// to ask the bucket.
	out *bloom
	// tooLarge are entries that became larger than a NATS message may be,
	// by the sequence of the event that last changed each: not written,
	// that event set aside (replay).
	tooLarge map[string]uint64
	// skip are events set aside for making an entry too large in an
	// earlier round.
	skip map[uint64]bool
}

type hotEntry struct {
	key     string
	rec     record
	size    int
	dirty   bool // changed since it was last written out
	written bool // the bucket may hold it: a tombstone must delete it there
}

// rebuildCacheBytes bounds the records a rebuild keeps in memory.
const rebuildCacheBytes = 32 << 20

// maxPendingWrites bounds the writes awaiting their acknowledgement.
const maxPendingWrites = 4096

// newRebuildStore makes the store of a replay of about events events.
func newRebuildStore(js jetstream.JetStream, kv jetstream.KeyValue, maxBytes int, events uint64) *rebuildStore {
	return &rebuildStore{kv: kv, js: js, prefix: "$KV." + kv.Bucket() + ".", maxBytes: maxBytes,
		hot: map[string]*list.Element{}, order: list.New(), written: map[string][]byte{},
		out: newBloom(2 * max(events, 1<<16))}
}

// recordSize estimates what a record takes in memory, decoded and kept
// (the structs, their strings, and the map and list entries that hold
// them; measured with heap profiles): list pages grow with their
// summaries, the rest are about the same.
func recordSize(rec record) int {
	switch r := rec.(type) {
	case *Page:
		return 384 + 256*len(r.Items)
	case *Inbox:
		return 1024 + 256*len(r.Head) + 64*len(r.Pages) + 96*len(r.Marks) + 96*len(r.Webhooks)
	case *TenantPage:
		return 384 + 256*len(r.Items)
	case *DomainList:
		return 384 + 256*len(r.Items)
	}
	return 768
}

func (s *rebuildStore) get(ctx context.Context, key string, rec record) (uint64, bool, error) {
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
	if err := decode(value, rec); err != nil {
		return 0, false, fmt.Errorf("view entry %s: %w", printable(key), err)
	}
	kept := reflect.New(reflect.TypeOf(rec).Elem())
	kept.Elem().Set(reflect.ValueOf(rec).Elem())
	if err := s.keep(ctx, key, kept.Interface().(record), false, true); err != nil {
		return 0, false, err
	}
	return 1, true, nil
}

func (s *rebuildStore) write(ctx context.Context, ws []change) error {
	for _, w := range ws {
		var err error
		if w.gone {
			err = s.tombstone(ctx, w.key)
		} else {
			err = s.put(ctx, w.key, 0, w.rec)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *rebuildStore) put(ctx context.Context, key string, _ uint64, rec record) error {
	// An entry let go since it was read may be in the bucket.
	written := s.out.has(key)
	if el, ok := s.hot[key]; ok {
		written = el.Value.(*hotEntry).written
	}
	return s.keep(ctx, key, rec, true, written)
}

// keep makes rec the hot record of key, and lets the least recently used
// go while the hot records take more than maxBytes.
func (s *rebuildStore) keep(ctx context.Context, key string, rec record, dirty, written bool) error {
	if el, ok := s.hot[key]; ok {
		e := el.Value.(*hotEntry)
		s.bytes -= e.size
		e.rec, e.size, e.dirty, e.written = rec, recordSize(rec), e.dirty || dirty, e.written || written
		s.bytes += e.size
		s.order.MoveToFront(el)
	} else {
		e := &hotEntry{key: key, rec: rec, size: recordSize(rec), dirty: dirty, written: written}
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

func (s *rebuildStore) tombstone(ctx context.Context, key string) error {
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
func (s *rebuildStore) writeOut(ctx context.Context, key string, rec record) error {
	data, err := encode(rec)
	if err != nil {
		return err
	}
	if len(data) > maxEntryBytes {
		if s.tooLarge == nil {
			s.tooLarge = map[string]uint64{}
		}
		s.tooLarge[key] = rec.meta().Seq
		return nil
	}
	s.written[key] = data
	s.out.add(key)
	s.keys++
	return s.publish(ctx, &nats.Msg{Subject: s.prefix + key, Data: data}, data)
}

func (s *rebuildStore) publish(ctx context.Context, m *nats.Msg, _ []byte) error {
	f, err := s.js.PublishMsgAsync(m, jetstream.WithStallWait(30*time.Second))
	if err != nil {
		return err
	}
	s.pending = append(s.pending, f)
	if len(s.pending) >= maxPendingWrites {
		return s.settle(ctx)
	}
	return nil
}

// settle waits until every write so far is acknowledged.
func (s *rebuildStore) settle(ctx context.Context) error {
	for _, f := range s.pending {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("write rebuilt views: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.pending = s.pending[:0]
	clear(s.written)
	return nil
}

// flush writes out every record still held and waits for all the writes.
func (s *rebuildStore) flush(ctx context.Context) error {
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
