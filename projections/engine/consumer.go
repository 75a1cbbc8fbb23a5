package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/events"
	"tempmail/projections/view"
)

// A partition's consumer: pinned to one worker of the processes that run
// one, reset to the checkpoint at start, and what a pull asks for.

// maxBatch bounds the events of one batch: its writes are pipelined, and
// the consumer lets this many (twice over) be in a worker's hands.
const maxBatch = 256

// ConsumerName is the name of the durable consumer of a partition's
// events, in the generation the engine serves.
func (v *Engine) ConsumerName(part string) string {
	return consumerPre + strconv.Itoa(v.gen) + "-" + part
}

// consumer returns the partition's durable consumer, creating it to start
// after the partition's checkpoint: a rebuilt generation starts where its
// replay ended, a new one from the beginning.
func (v *Engine) consumer(ctx context.Context, part string) (jetstream.Consumer, error) {
	name := v.ConsumerName(part)
	cons, err := v.js.Consumer(ctx, events.StreamName, name)
	if err == nil {
		c := cons.CachedInfo().Config
		if slices.Contains(c.PriorityGroups, PriorityGroup) && c.AckPolicy == jetstream.AckAllPolicy && c.MemoryStorage == v.opts.Exclusive {
			return cons, nil
		}
		// Made by a version without priority groups or batches, or with
		// its state on disk, which a consumer cannot change: start it
		// again from the checkpoint.
		if err := v.js.DeleteConsumer(ctx, events.StreamName, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return nil, fmt.Errorf("replace consumer %s: %w", name, err)
		}
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, fmt.Errorf("look up consumer %s: %w", name, err)
	}
	cp, err := v.readCheckpoint(ctx, part)
	if err != nil {
		return nil, err
	}
	cfg := jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "tempmail views, partition " + part,
		FilterSubject: events.PartitionFilter(part),
		// A batch is acknowledged by its last event.
		AckPolicy:      jetstream.AckAllPolicy,
		AckWait:        ackWait,
		MaxAckPending:  2 * maxBatch,
		MaxDeliver:     -1,
		Replicas:       v.opts.Replicas,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
		PriorityPolicy: jetstream.PriorityPolicyPinned,
		PriorityGroups: []string{PriorityGroup},
		PinnedTTL:      pinnedTTL,
		// A single node keeps the consumer's state in memory: it starts
		// from the checkpoint whenever the process does (Start), so the
		// state on disk was never read, and writing it after every
		// batch's ack was a thirtieth of the CPU of ingest. A cluster's
		// workers take partitions over from one another by that state.
		MemoryStorage: v.opts.Exclusive,
	}
	if cp.Seq > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, cp.Seq+1
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

// resetToCheckpoint makes the consumer deliver again everything after the
// partition's checkpoint, in order: events another worker held unacknowledged
// (it died, or handed the partition over) then come first.
func (v *Engine) resetToCheckpoint(ctx context.Context, part string) error {
	cp, err := v.readCheckpoint(ctx, part)
	if err != nil {
		return err
	}
	if _, err := v.js.ResetConsumerToSequence(ctx, events.StreamName, v.ConsumerName(part), cp.Seq+1); err != nil {
		return fmt.Errorf("reset consumer %s: %w", v.ConsumerName(part), err)
	}
	return nil
}

// pullOptions are a worker's pull requests. The server keeps a partition
// pinned to a worker only while it keeps asking within pinnedTTL; the
// client library's default (a pull every 30 s when idle) would let the pin
// wander between live processes every few seconds. A single node has no
// one to hand over to, and saves the traffic.
func (v *Engine) pullOptions() []jetstream.PullMessagesOpt {
	opts := []jetstream.PullMessagesOpt{jetstream.PullPriorityGroup(PriorityGroup), jetstream.PullMaxMessages(maxBatch)}
	if !v.opts.Exclusive {
		opts = append(opts, jetstream.PullExpiry(pinnedTTL/2))
	}
	return opts
}

// unpin lets another process's worker take a partition over at once, rather
// than after pinnedTTL, when this one stops.
func (v *Engine) unpin(part string) {
	if !v.js.Conn().IsConnected() {
		return // no server to tell; the request would wait for its timeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := v.store.Stream().UnpinConsumer(ctx, v.ConsumerName(part), PriorityGroup); err != nil {
		v.log.Debug("views: unpin on stop failed; another worker takes over after the pinned TTL", "partition", part, "err", err)
	}
}

// readCheckpoint returns the partition's checkpoint; the zero one if it has
// none yet.
func (v *Engine) readCheckpoint(ctx context.Context, part string) (view.Checkpoint, error) {
	var cp view.Checkpoint
	value, _, present, err := v.entries.Last(ctx, view.CheckpointKey(part))
	if err != nil {
		return view.Checkpoint{}, view.Unavailable(err)
	}
	if present {
		if err := v.schema.Decode(value, &cp); err != nil {
			return view.Checkpoint{}, fmt.Errorf("checkpoint of %s: %w", part, err)
		}
	}
	return cp, nil
}
