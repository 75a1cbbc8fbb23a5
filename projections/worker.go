package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/events"
)

func (v *Views) consumerName(part string) string {
	return consumerPre + strconv.Itoa(v.gen) + "-" + part
}

// consumer returns the partition's durable consumer, creating it to start
// after the partition's checkpoint: a rebuilt generation starts where its
// replay ended, a new one from the beginning.
func (v *Views) consumer(ctx context.Context, part string) (jetstream.Consumer, error) {
	name := v.consumerName(part)
	cons, err := v.js.Consumer(ctx, events.StreamName, name)
	if err == nil && slices.Contains(cons.CachedInfo().Config.PriorityGroups, priorityGroup) {
		return cons, nil
	}
	if err == nil {
		// Made by a version without priority groups, which a consumer
		// cannot gain: start it again from the checkpoint.
		if err := v.js.DeleteConsumer(ctx, events.StreamName, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return nil, fmt.Errorf("replace consumer %s: %w", name, err)
		}
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, fmt.Errorf("look up consumer %s: %w", name, err)
	}
	cp, err := v.checkpoint(ctx, part)
	if err != nil {
		return nil, err
	}
	cfg := jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "tempmail views, partition " + part,
		FilterSubject: events.PartitionFilter(part),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		// One event in flight: a partition is applied strictly in order,
		// also across redeliveries.
		MaxAckPending:  1,
		MaxDeliver:     -1,
		Replicas:       v.opts.Replicas,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
		PriorityPolicy: jetstream.PriorityPolicyPinned,
		PriorityGroups: []string{priorityGroup},
		PinnedTTL:      pinnedTTL,
	}
	if cp > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, cp+1
	}
	cons, err = v.js.CreateConsumer(ctx, events.StreamName, cfg)
	if errors.Is(err, jetstream.ErrConsumerExists) {
		return v.js.Consumer(ctx, events.StreamName, name)
	}
	if err != nil {
		return nil, fmt.Errorf("create consumer %s: %w", name, err)
	}
	return cons, nil
}

func (v *Views) resetToCheckpoint(ctx context.Context, part string) error {
	cp, err := v.checkpoint(ctx, part)
	if err != nil {
		return err
	}
	if _, err := v.js.ResetConsumerToSequence(ctx, events.StreamName, v.consumerName(part), cp+1); err != nil {
		return fmt.Errorf("reset consumer %s: %w", v.consumerName(part), err)
	}
	return nil
}

// work applies a partition's events one at a time, while the server has it
// pinned to this worker, until ctx ends.
func (v *Views) work(ctx context.Context, st viewStore, part string, cons jetstream.Consumer) {
	log := v.log.With("partition", part)
	var cp checkpointer
	pinned := false // this worker has received events, so it may hold the pin
	defer func() {
		v.flushCheckpoint(part, &cp, log)
		if pinned {
			v.unpin(part)
		}
	}()
	// After a reconnection (an external server restarted) the iterator's
	// pulls are gone with the old connection, and it would notice only when
	// heartbeats fail to come; a fresh one pulls at once.
	reconnected := v.js.Conn().StatusChanged(nats.CONNECTED)
	defer v.js.Conn().RemoveStatusListener(reconnected)
	for ctx.Err() == nil {
		it, err := cons.Messages(v.pullOptions()...)
		if err != nil {
			v.health.fail(partitionComponent(part), false)
			log.Warn("views: cannot consume; retrying", "err", err)
			sleep(ctx, time.Second)
			continue
		}
		v.health.ok(partitionComponent(part))
		restart := make(chan struct{})
		go func() {
			select {
			case <-reconnected:
				log.Debug("views: connection restored; pulling again")
				it.Stop()
			case <-restart:
			}
		}()
		// Stopping drains: an event already delivered is applied and
		// acknowledged, not left to the ack wait of whoever takes over.
		pinned = false
		stop := context.AfterFunc(ctx, it.Drain)
		for {
			msg, err := it.Next()
			if err != nil {
				switch {
				case errors.Is(err, jetstream.ErrMsgIteratorClosed):
				case errors.Is(err, jetstream.ErrNoHeartbeat):
					// What a worker that is not pinned sees: the server
					// holds its pulls without heartbeats.
					log.Debug("views: waiting for the partition", "err", err)
				default:
					v.health.fail(partitionComponent(part), false)
					log.Warn("views: consumer interrupted; resuming", "err", err)
				}
				break
			}
			pinned = true
			v.handle(ctx, st, part, msg, &cp, log)
		}
		stop()
		it.Stop()
		close(restart)
	}
}

// purgeTimeout bounds one try at erasing what a deletion took away.
const purgeTimeout = 2 * time.Minute

// inProgress returns a function that tells the server, at most every
// second, that msg is still being worked on, so that it is not handed to
// another worker after the ack wait.
func inProgress(msg jetstream.Msg) func() {
	last := time.Now()
	return func() {
		if time.Since(last) >= time.Second {
			_ = msg.InProgress()
			last = time.Now()
		}
	}
}

// checkpointer spaces out a partition's checkpoint writes under load: one
// when the partition has caught up, and at least every checkpointEvery while
// events keep coming. Commands wait on checkpoints, so the bound is also
// the most a command waits beyond its own event's application.
//
// It also keeps the partition's counts (live inboxes, stored messages),
// which travel in the checkpoint: every process's watcher sees them there,
// and a worker that takes the partition over goes on from them. They are
// the sum of what each applied event changed (applyCounting), which an
// idempotent application makes exact across retries and redeliveries. The
// last checkpoint is written when the worker stops, so a restart or a
// hand-over loses nothing; only a process killed while events were coming
// leaves them off by what it applied in its last checkpointEvery, and
// `tempmail rebuild` counts afresh.
type checkpointer struct {
	written time.Time
	// loaded: counts hold the partition's counts as of lastSeq. When
	// another worker may have applied events since (the first event of
	// this worker, or a gap in the consumer's delivery sequence), they are
	// read again from the checkpoint.
	loaded      bool
	counts      *Counts // nil: unknown (views of a version that did not count)
	lastSeq     uint64  // the last event applied
	lastDeliver uint64  // its consumer sequence
	pending     bool    // lastSeq or counts changed since the last checkpoint written
}

const checkpointEvery = 20 * time.Millisecond

func (c *checkpointer) due(md *jetstream.MsgMetadata) bool {
	return md.NumPending == 0 || time.Since(c.written) >= checkpointEvery
}

// loadCounts reads the counts the partition's checkpoint holds, unless
// they are known to be this worker's own.
func (v *Views) loadCounts(ctx context.Context, part string, cp *checkpointer, md *jetstream.MsgMetadata) error {
	if d := md.Sequence.Consumer; cp.loaded && (d == cp.lastDeliver || d == cp.lastDeliver+1) {
		return nil
	}
	c, err := v.readCheckpoint(ctx, part)
	if err != nil {
		return err
	}
	cp.counts, cp.lastSeq, cp.pending, cp.loaded = c.Counts, c.Seq, false, true
	if c.Seq == 0 {
		cp.counts = &Counts{} // a partition that never applied anything holds nothing
	}
	return nil
}

// handle applies one event, retrying until it is applied or the worker
// stops; it never skips ahead, because a later event must not be applied
// before an earlier one of the same partition.
func (v *Views) handle(ctx context.Context, st viewStore, part string, msg jetstream.Msg, cp *checkpointer, log *slog.Logger) {
	md, err := msg.Metadata()
	if err != nil {
		log.Error("views: message without metadata", "err", err)
		return
	}
	seq := md.Sequence.Stream
	p, at, err := events.Decode(msg.Data())
	if err != nil {
		// A newer schema or a corrupt event: stop this partition (by not
		// acknowledging) and say so, rather than building wrong views.
		log.Error("views: cannot decode event; partition halted until a build that reads it runs", "seq", seq, "err", err)
		v.health.fail(partitionComponent(part), true)
		_ = msg.NakWithDelay(30 * time.Second)
		return
	}
	for attempt := 0; ; attempt++ {
		// In-flight work finishes on shutdown: the event's writes are not
		// cut off by ctx, only bounded in time.
		actx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err = v.loadCounts(actx, part, cp, md)
		if err == nil {
			err = v.dispatch(actx, st, seq, part, at, p)
		}
		ended := false
		if err == nil {
			// A failed attempt's writes count too: the next attempt (or
			// the next worker) finds them applied and does not count them.
			var a applied
			a, err = applyEvent(actx, st, seq, p)
			if cp.counts != nil && a.delta != (Counts{}) {
				cp.counts.add(a.delta)
				cp.pending = true
			}
			cp.lastDeliver = md.Sequence.Consumer
			ended = a.ended
		}
		if err == nil {
			// The views no longer show what a deletion removed; now its
			// keys are erased and its events leave the log. An inbox's
			// thousand messages can take a while (much longer where
			// erasing rewrites a block), so the erasure has its own
			// time, and tells the server it is still at it.
			pctx, pcancel := context.WithTimeout(context.Background(), purgeTimeout)
			err = v.store.Purge(pctx, seq, msg.Subject(), p, ended, inProgress(msg))
			pcancel()
		}
		if err == nil {
			cp.lastSeq, cp.pending = seq, true
		}
		if err == nil && cp.due(md) {
			if err = v.putCheckpoint(actx, part, seq, cp.counts); err == nil {
				cp.written, cp.pending = time.Now(), false
			}
		}
		cancel()
		if err == nil {
			v.health.ok(partitionComponent(part))
			break
		}
		if !errors.Is(err, errConflict) {
			v.health.fail(partitionComponent(part), false)
			v.store.CountError("apply")
			log.Warn("views: applying event failed; retrying", "seq", seq, "type", p.EventType(), "err", err)
		}
		if !sleep(ctx, backoff(attempt)) {
			return // stopping; the event will be redelivered
		}
		_ = msg.InProgress() // still ours: no redelivery while we retry
	}
	v.applied.Add(1)
	v.metrics.observeApplied(md.Timestamp)
	if err := msg.Ack(); err != nil {
		log.Debug("views: ack failed; the event will be redelivered and skipped", "seq", seq, "err", err)
	}
}

// dispatch hands the deliveries an event calls for to the outbox, before
// the event is applied: the views then still show who was subscribed when
// it happened (an inbox's own subscriptions hear of its end). Applying
// follows only once the outbox holds them, so a crash in between
// dispatches again, which the outbox recognises.
func (v *Views) dispatch(ctx context.Context, st viewStore, seq uint64, part string, at time.Time, p events.Payload) error {
	if v.opts.Outbox == nil {
		return nil
	}
	ds, err := v.deliveries(ctx, st, seq, part, at, p)
	if err != nil || len(ds) == 0 {
		return err
	}
	return v.opts.Outbox.Enqueue(ctx, ds)
}

// pullOptions are a worker's pull requests. The server keeps a partition
// pinned to a worker only while it keeps asking within pinnedTTL; the
// client library's default (a pull every 30 s when idle) would let the pin
// wander between live processes every few seconds. A single node has no
// one to hand over to, and saves the traffic.
func (v *Views) pullOptions() []jetstream.PullMessagesOpt {
	opts := []jetstream.PullMessagesOpt{jetstream.PullPriorityGroup(priorityGroup)}
	if !v.opts.Exclusive {
		opts = append(opts, jetstream.PullExpiry(pinnedTTL/2))
	}
	return opts
}

// unpin lets another process's worker take a partition over at once, rather
// than after pinnedTTL, when this one stops.
func (v *Views) unpin(part string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := v.store.Stream().UnpinConsumer(ctx, v.consumerName(part), priorityGroup); err != nil {
		v.log.Debug("views: unpin on stop failed; another worker takes over after the pinned TTL", "partition", part, "err", err)
	}
}

func (v *Views) putCheckpoint(ctx context.Context, part string, seq uint64, counts *Counts) error {
	data, _ := json.Marshal(Checkpoint{Meta: Meta{Seq: seq}, Counts: counts})
	if _, err := v.kv.Put(ctx, checkpointKey(part), data); err != nil {
		return unavailable(err)
	}
	return nil
}

// flushCheckpoint writes the checkpoint of the last event applied when it
// was not yet written, as a worker stops: its successor (this process
// restarted, or another's worker) goes on from it, counts included.
func (v *Views) flushCheckpoint(part string, cp *checkpointer, log *slog.Logger) {
	if !cp.pending {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := v.putCheckpoint(ctx, part, cp.lastSeq, cp.counts); err != nil {
		log.Warn("views: could not write the last checkpoint; its events will be applied again", "seq", cp.lastSeq, "err", err)
		return
	}
	cp.pending = false
}

func (v *Views) checkpoint(ctx context.Context, part string) (uint64, error) {
	cp, err := v.readCheckpoint(ctx, part)
	return cp.Seq, err
}

// readCheckpoint returns the partition's checkpoint; the zero one if it has
// none yet.
func (v *Views) readCheckpoint(ctx context.Context, part string) (Checkpoint, error) {
	var cp Checkpoint
	if _, _, err := newKVStore(v.js, v.kv).get(ctx, checkpointKey(part), &cp); err != nil {
		return Checkpoint{}, err
	}
	return cp, nil
}

func backoff(attempt int) time.Duration {
	d := 10 * time.Millisecond << min(attempt, 7)
	return min(d, time.Second)
}

// sleep waits for d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
