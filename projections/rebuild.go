package projections

import (
	"context"
	"errors"
	"fmt"
	"reflect"
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
	Keys       int           // view entries written
	Took       time.Duration // replay and write, without the switch
}

// Rebuild replays the whole event stream into a new views generation and
// makes it current only once it is complete; until then readers keep the old
// one, and an interrupted rebuild leaves it untouched. Serving processes must
// not run meanwhile (the caller ensures it): they would keep applying to the
// old generation.
func Rebuild(ctx context.Context, js jetstream.JetStream, store *events.Store, opts Options) (RebuildResult, error) {
	start := time.Now()
	if opts.Replicas == 0 {
		opts.Replicas = 1
	}
	meta, err := metaKV(ctx, js, opts.Replicas)
	if err != nil {
		return RebuildResult{}, err
	}
	oldGen, rev, err := currentGeneration(ctx, meta)
	if err != nil {
		return RebuildResult{}, err
	}
	gen := oldGen + 1
	// A bucket of this generation can only be a leftover of an interrupted
	// rebuild: start it afresh.
	if err := js.DeleteKeyValue(ctx, bucketName(gen)); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		return RebuildResult{}, fmt.Errorf("remove unfinished %s: %w", bucketName(gen), err)
	}
	kv, err := viewsBucket(ctx, js, gen, opts.Replicas)
	if err != nil {
		return RebuildResult{}, err
	}

	mem := newMemStore()
	n, err := replay(ctx, store, mem)
	if err != nil {
		return RebuildResult{}, err
	}
	if err := mem.flush(ctx, js, "$KV."+kv.Bucket()+"."); err != nil {
		return RebuildResult{}, fmt.Errorf("write rebuilt views: %w", err)
	}
	res := RebuildResult{Generation: gen, Events: n, Keys: len(mem.data), Took: time.Since(start)}

	// The switch: one compare-and-swap, so a concurrent rebuild cannot be
	// silently overwritten.
	if _, err := meta.Update(ctx, generationKey, []byte(strconv.Itoa(gen)), rev); err != nil {
		return RebuildResult{}, fmt.Errorf("switch to views generation %d: %w", gen, err)
	}
	// The old generation is no longer read; its consumers go when a server
	// next starts (Views.Start), its bucket now.
	if err := js.DeleteKeyValue(ctx, bucketName(oldGen)); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		opts.Logger.Warn("rebuild: could not remove the old views bucket", "bucket", bucketName(oldGen), "err", err)
	}
	return res, nil
}

// replay applies every event in the stream, in order, to st, and records the
// per-partition checkpoints a live projection would have.
func replay(ctx context.Context, store *events.Store, st *memStore) (uint64, error) {
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
		p, _, err := events.Decode(msg.Data())
		if err != nil {
			return n, fmt.Errorf("replay event %d: %w", seq, err)
		}
		d, err := applyCounting(ctx, st, seq, p)
		if err != nil {
			return n, fmt.Errorf("replay event %d: %w", seq, err)
		}
		part := events.PartitionOf(msg.Subject())
		cp := checkpoints[part]
		if cp == nil {
			cp = &Checkpoint{Counts: &Counts{}}
			checkpoints[part] = cp
		}
		cp.Seq = seq
		cp.Counts.add(d)
		n++
		if seq >= last {
			break
		}
	}
	for part, cp := range checkpoints {
		st.data[checkpointKey(part)] = cp
	}
	return n, nil
}

// memStore is the viewStore of a rebuild: one writer, nothing to race with,
// so it keeps records in memory, decoded, and writes them out once at the
// end. A tombstone simply removes the entry: no older event can follow in a
// replay. Nor is an event ever applied twice or abandoned half-way (a failed
// replay is thrown away), so records are handed out and taken back without
// the copies kvStore makes: a reader's changes are what it writes next.
type memStore struct {
	data map[string]record
	revs map[string]uint64
}

func newMemStore() *memStore {
	return &memStore{data: map[string]record{}, revs: map[string]uint64{}}
}

func (m *memStore) get(_ context.Context, key string, rec record) (uint64, bool, error) {
	stored, ok := m.data[key]
	if !ok {
		return 0, false, nil
	}
	reflect.ValueOf(rec).Elem().Set(reflect.ValueOf(stored).Elem())
	return m.revs[key], true, nil
}

func (m *memStore) put(_ context.Context, key string, rev uint64, rec record) error {
	_, present := m.data[key]
	if (rev == 0 && present) || (rev != 0 && m.revs[key] != rev) {
		return errConflict
	}
	m.data[key] = rec
	m.revs[key]++
	return nil
}

func (m *memStore) tombstone(_ context.Context, key string, rev uint64, _ uint64) error {
	if m.revs[key] != rev {
		return errConflict
	}
	delete(m.data, key)
	delete(m.revs, key)
	return nil
}

// flush writes every entry with asynchronous publishes and waits for all acks.
func (m *memStore) flush(ctx context.Context, js jetstream.JetStream, prefix string) error {
	futures := make([]jetstream.PubAckFuture, 0, len(m.data))
	for key, rec := range m.data {
		data, err := encode(rec)
		if err != nil {
			return err
		}
		f, err := js.PublishMsgAsync(&nats.Msg{Subject: prefix + key, Data: data},
			jetstream.WithStallWait(30*time.Second))
		if err != nil {
			return err
		}
		futures = append(futures, f)
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return err
		}
	}
	return nil
}
