package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/events"
	"tempmail/projections/view"
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
func Rebuild(ctx context.Context, js jetstream.JetStream, store *events.Store, views Views, opts Options) (RebuildResult, error) {
	start := time.Now()
	if opts.Replicas == 0 {
		opts.Replicas = 1
	}
	meta, err := metaKV(ctx, js, opts.Replicas)
	if err != nil {
		return RebuildResult{}, err
	}
	oldGen, rev, _, err := currentGeneration(ctx, meta, opts.Format)
	if err != nil {
		return RebuildResult{}, err
	}
	gen := oldGen + 1
	// An event that makes an entry too large shows only once the entry
	// is written: the replay is made again without it, set aside, as a
	// worker would have set it aside (a few rounds at most: such events
	// are not what the service writes).
	skip := map[uint64]bool{}
	var st *view.Bulk
	var n uint64
	for round := 0; ; round++ {
		// A bucket of this generation can only be a leftover of an
		// interrupted rebuild (or of the round before): start it afresh.
		if err := js.DeleteKeyValue(ctx, BucketName(gen)); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
			return RebuildResult{}, fmt.Errorf("remove unfinished %s: %w", BucketName(gen), err)
		}
		kv, err := ViewsBucket(ctx, js, gen, opts.Replicas)
		if err != nil {
			return RebuildResult{}, err
		}
		last, err := store.LastEventSeq(ctx)
		if err != nil {
			return RebuildResult{}, err
		}
		st = view.NewBulk(js, kv, rebuildCacheBytes, last, schema{views})
		st.Skip = skip
		if n, err = Replay(ctx, store, st, views, rebuildBatch); err != nil {
			return RebuildResult{}, err
		}
		if err := st.Flush(ctx); err != nil {
			return RebuildResult{}, err
		}
		if len(st.TooLarge) == 0 {
			break
		}
		if round == maxRebuildRounds {
			return RebuildResult{}, fmt.Errorf("replay: view entries still too large after setting aside %d events: %v", len(skip), slices.Collect(maps.Keys(st.TooLarge)))
		}
		for key, seq := range st.TooLarge {
			opts.Logger.Warn("rebuild: an event makes a view entry larger than NATS takes; replaying again without it", "entry", views.Printable(key), "seq", seq)
			skip[seq] = true
		}
	}
	res := RebuildResult{Generation: gen, Events: n, Keys: st.Keys(), Took: time.Since(start)}

	// The switch: one compare-and-swap, so a concurrent rebuild cannot be
	// silently overwritten; then the format of what is now current.
	if _, err := meta.Update(ctx, generationKey, []byte(strconv.Itoa(gen)), rev); err != nil {
		return RebuildResult{}, fmt.Errorf("switch to views generation %d: %w", gen, err)
	}
	if _, err := meta.Put(ctx, formatKey, []byte(opts.Format)); err != nil {
		return RebuildResult{}, fmt.Errorf("record views format: %w", err)
	}
	if err := store.Flush(ctx, "KV_"+metaBucket); err != nil {
		return RebuildResult{}, fmt.Errorf("record views generation %d: %w", gen, err)
	}
	// The old generation is no longer read; its consumers go when a server
	// next starts (Engine.Start), its bucket now.
	if err := js.DeleteKeyValue(ctx, BucketName(oldGen)); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		opts.Logger.Warn("rebuild: could not remove the old views bucket", "bucket", BucketName(oldGen), "err", err)
	}
	return res, nil
}

// maxRebuildRounds bounds the replays a rebuild makes again, each without
// events that made entries too large.
const maxRebuildRounds = 4

// rebuildBatch is how many events a rebuild applies between writes: the
// same coalescing the workers get from their batches, on a larger scale.
const rebuildBatch = 1024

// rebuildCacheBytes bounds the records a rebuild keeps in memory.
const rebuildCacheBytes = 32 << 20

// Replay applies every event in the stream, in order, to st, batchEvents
// at a time, and records the per-partition checkpoints a live projection
// would have, with what the log is still to forget of what the replay let
// go (the live workers do that forgetting, unless there is more than
// MaxPendingForget of it). It returns how many events it applied; what it
// holds is written once st is flushed. Rebuild replays into a new
// generation.
func Replay(ctx context.Context, store *events.Store, st *view.Bulk, views Views, batchEvents int) (uint64, error) {
	last, err := store.LastEventSeq(ctx)
	if err != nil || last == 0 {
		return 0, err
	}
	// The replay reads the stream whole and passes over the schedules it
	// holds beside the events: a consumer filtered to the events had the
	// server look for the next match among each block's subjects at every
	// message, which was half of a rebuild's CPU.
	cons, err := store.Stream().OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
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

	r := replayed{checkpoints: map[string]*view.Checkpoint{}, pending: map[string]*Pending{}, asides: map[string]*SetAside{}}
	b := NewBatch(ctx, st, views, false, store.PartitionOfAddress)
	flush := func() error {
		runs, deltas := b.Changes()
		for part, d := range deltas {
			r.checkpoints[part].Counts.Add(d)
		}
		b = NewBatch(ctx, st, views, false, store.PartitionOfAddress)
		for _, ws := range runs {
			if err := st.Write(ctx, ws); err != nil {
				return err
			}
		}
		return nil
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
		if events.IsEvent(msg.Subject()) {
			if err := r.apply(b, st, seq, msg.Subject(), msg.Data()); err != nil {
				return n, err
			}
			n++
		}
		if b.events >= batchEvents || seq >= last {
			if err := flush(); err != nil {
				return n, err
			}
			if err := forgetNow(ctx, store, r.pending); err != nil {
				return n, err
			}
		}
		if seq >= last {
			break
		}
	}
	return n, r.put(ctx, st)
}

// replayed is what a replay records of each partition beside the views:
// its checkpoint, what the log is still to forget of what it let go, and
// the events no view can apply, set aside as the workers do.
type replayed struct {
	checkpoints map[string]*view.Checkpoint
	pending     map[string]*Pending
	asides      map[string]*SetAside
}

// apply applies the event at seq to b, or sets it aside when nothing of it
// applies, and records it in its partition's checkpoint.
func (r *replayed) apply(b *Batch, st *view.Bulk, seq uint64, subject string, data []byte) error {
	part := events.PartitionOf(subject)
	if r.checkpoints[part] == nil {
		r.checkpoints[part] = &view.Checkpoint{Counts: &view.Counts{}}
	}
	before := b.Forget
	p, at, err := events.Decode(data)
	switch {
	case err == nil && st.Skip[seq]:
		b.tx(seq, subject, at)
		err = fmt.Errorf("%w: %s", errTooLarge, p.EventType())
	case err == nil:
		err = b.Apply(seq, subject, at, p)
	}
	switch {
	case err == nil:
	case p == nil || errors.Is(err, ErrNoView) || errors.Is(err, errTooLarge):
		// Nothing of it applied: set aside, and the replay goes on.
		if r.asides[part] == nil {
			r.asides[part] = &SetAside{}
		}
		kind := "undecodable"
		if p != nil {
			kind = string(p.EventType())
		}
		r.asides[part].add(AsideEvent{Seq: seq, Type: kind, Error: bounded(err.Error(), asideErrorBytes), At: time.Now().UTC()})
	default:
		return fmt.Errorf("replay event %d: %w", seq, err)
	}
	if f := forgotten(before, b.Forget); !f.Empty() {
		if r.pending[part] == nil {
			r.pending[part] = &Pending{}
		}
		r.pending[part].Forget.Add(f)
		r.pending[part].UpTo = seq
	}
	r.checkpoints[part].Seq = seq
	return nil
}

// put writes what the replay recorded of each partition: what the log is
// still to forget, the events set aside, and the checkpoint.
func (r *replayed) put(ctx context.Context, st *view.Bulk) error {
	for part, p := range r.pending {
		p.Seq = p.UpTo
		if err := st.Put(ctx, PendingKey(part), p); err != nil {
			return err
		}
	}
	for part, a := range r.asides {
		if err := st.Put(ctx, AsideKey(part), a); err != nil {
			return err
		}
	}
	for part, cp := range r.checkpoints {
		if err := st.Put(ctx, view.CheckpointKey(part), cp); err != nil {
			return err
		}
	}
	return nil
}

// MaxPendingForget bounds what a partition's pending forget holds at the
// end of a replay: it is one view entry, and a replay of a log holding much
// the views let go (a rebuild with a lower --max-messages-per-inbox, or a
// log written with no projection to forget) would otherwise make it larger
// than a NATS message may be.
const MaxPendingForget = 1024

// forgetNow makes the log forget what a partition's pending forget holds,
// once it passes MaxPendingForget, as the live workers would have: what
// the replay let go by the log's own events and the rules it was given.
func forgetNow(ctx context.Context, store *events.Store, pending map[string]*Pending) error {
	for part, p := range pending {
		f := p.Forget
		if f.Len() < MaxPendingForget {
			continue
		}
		if err := store.Forget(ctx, f, p.UpTo, nil); err != nil {
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
