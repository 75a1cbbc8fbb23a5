package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/events"
	"tempmail/projections/view"
	"tempmail/retry"
)

// A partition's worker applies its events in batches: what is waiting when
// it looks, up to maxBatch events. Each batch goes through explicit steps:
//
//  1. apply: the events are applied in memory, in order (batch.go, and
//     the views' Applier), which also says what the log may forget
//     (deleted messages, ended inboxes) and what outbound webhooks are
//     owed;
//  2. outbox: the webhook deliveries are handed to the outbox, durably
//     (Applier.Dispatch);
//  3. write: what the log is to forget (f.<part>) is written first, then
//     the changed entries, each once, in the order readers may see them,
//     then the checkpoint (c.<part>): pipelined rank by rank (Views.Rank),
//     a rank sent once the one before is stored: a round trip per rank;
//  4. forget: once the checkpoint says every event it concerns is
//     applied, the log forgets (events.Store.Forget): keys erased, events
//     deleted;
//  5. ack: the batch's last event is acknowledged, and with it every one
//     before (the consumer acknowledges all up to it).
//
// A crash at any step leaves nothing half done that the next batch does
// not finish: unacknowledged events come again and are applied again
// exactly (entries record their sequence), and a pending forget is done
// once its events are applied.

// partition is one worker's state of its partition, between batches.
type partition struct {
	name string
	st   *view.KV
	log  *slog.Logger
	// loaded: seq, counts and pending are as the views hold them; after a
	// hand-over or a conflict they are read again.
	loaded  bool
	seq     uint64       // the last event applied, as the checkpoint says
	counts  *view.Counts // nil: unknown (views of a version that did not count)
	pending Pending      // what the log is still to forget
	stored  bool         // f.<part> holds something, done or not
	// retried: the events the partition set aside were tried again since
	// this worker took it (aside.go).
	retried bool
	// Since when batches were sent back, the checkpoint at waitingAt
	// (sentBackFor, gap.go).
	waiting   time.Time
	waitingAt uint64
}

// work applies a partition's events, in batches, while the server has it
// pinned to this worker, until ctx ends.
func (v *Engine) work(ctx context.Context, p *partition, cons jetstream.Consumer) {
	// What a predecessor did not finish forgetting, if it is due.
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	if err := v.load(lctx, p); err == nil {
		v.forget(ctx, p, nil)
		if v.opts.Exclusive {
			// Alone, it holds the partition: no need to wait for events.
			v.retryAside(lctx, p)
			p.retried = true
		}
	}
	cancel()
	pinned := false // this worker has received events, so it may hold the pin
	defer func() {
		if pinned {
			v.unpin(p.name)
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
			v.health.fail(partitionComponent(p.name), false)
			p.log.Warn("views: cannot consume; retrying", "err", err)
			retry.Resume.Sleep(ctx, 0)
			continue
		}
		v.health.ok(partitionComponent(p.name))
		restart := make(chan struct{})
		go func() {
			select {
			case <-reconnected:
				p.log.Debug("views: connection restored; pulling again")
				it.Stop()
			case <-restart:
			}
		}()
		// Stopping drains: a batch already delivered is applied and
		// acknowledged, not left to the ack wait of whoever takes over.
		// Without a connection nothing can be acknowledged, and a drain
		// would wait for the missing heartbeats, beyond the shutdown's
		// grace: the iterator just stops.
		stop := context.AfterFunc(ctx, func() {
			if v.js.Conn().IsConnected() {
				it.Drain()
			} else {
				it.Stop()
			}
		})
		pinned = v.consume(ctx, p, it) || pinned
		stop()
		it.Stop()
		close(restart)
	}
}

// consume takes batches from one iterator until it ends. It reports
// whether any event came.
func (v *Engine) consume(ctx context.Context, p *partition, it jetstream.MessagesContext) bool {
	got := false
	for {
		msg, err := it.Next()
		if err != nil {
			switch {
			case errors.Is(err, jetstream.ErrMsgIteratorClosed):
			case errors.Is(err, jetstream.ErrNoHeartbeat):
				// What a worker that is not pinned sees: the server
				// holds its pulls without heartbeats.
				p.log.Debug("views: waiting for the partition", "err", err)
			default:
				v.health.fail(partitionComponent(p.name), false)
				p.log.Warn("views: consumer interrupted; resuming", "err", err)
			}
			return got
		}
		got = true
		msgs := []jetstream.Msg{msg}
		// More are waiting when the server said so as it sent this one:
		// they are on their way, and join the batch.
		for len(msgs) < maxBatch {
			md, err := msgs[len(msgs)-1].Metadata()
			if err != nil || md.NumPending == 0 {
				break
			}
			next, err := it.Next(jetstream.NextMaxWait(50 * time.Millisecond))
			if err != nil {
				break
			}
			msgs = append(msgs, next)
		}
		v.handle(ctx, p, msgs)
	}
}

// handle takes a batch through its steps, retrying each until it is done or
// the worker stops; it never skips ahead, because a later event must not be
// applied before an earlier one of the same partition. An event that cannot
// be applied, the same way each time (a newer schema, an entry it would make
// too large), is set aside (aside.go) and the partition goes on: the events
// around it are applied in runs, and a run that fails for good is applied
// again an event at a time, to find which.
func (v *Engine) handle(ctx context.Context, p *partition, msgs []jetstream.Msg) {
	var evs []decoded
	for _, msg := range msgs {
		md, err := msg.Metadata()
		if err != nil {
			p.log.Error("views: message without metadata", "err", err)
			return
		}
		e := decoded{seq: md.Sequence.Stream, subject: msg.Subject()}
		e.p, e.at, e.bad = events.Decode(msg.Data())
		evs = append(evs, e)
	}
	last := msgs[len(msgs)-1]
	if p.loaded && evs[0].seq <= p.seq {
		// Events this worker holds as applied come again: a redelivery,
		// or the consumer started again after a checkpoint the views went
		// back to (passed.go: views not yet on disk when a whole cluster
		// lost power). The checkpoint is read again, from the bucket's
		// leader, before anything is skipped as applied: skipped on this
		// worker's word alone, and acknowledged, they would be lost from
		// the views for good, however often the consumer started again.
		// Redeliveries are rare; the read costs one round trip.
		p.loaded = false
	}
	if !p.retried {
		// Events are handed to this worker: it holds the partition now.
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if v.load(rctx, p) == nil {
			v.retryAside(rctx, p)
		}
		cancel()
		p.retried = true
	}
	applied, o := v.applyAll(ctx, p, evs, msgs)
	if o != done {
		return
	}
	v.forget(ctx, p, last)
	v.health.ok(partitionComponent(p.name))
	if md, err := last.Metadata(); err == nil && applied > 0 {
		v.metrics.observeApplied(md.Timestamp)
	}
	if err := last.Ack(); err != nil {
		p.log.Debug("views: ack failed; the events will be redelivered and skipped", "err", err)
	}
}

// applyAll applies events in order: runs of them, and each one that cannot
// be read set aside. It returns how many it applied, and how it ended.
func (v *Engine) applyAll(ctx context.Context, p *partition, evs []decoded, msgs []jetstream.Msg) (int, outcome) {
	applied := 0
	for len(evs) > 0 {
		n := slices.IndexFunc(evs, func(e decoded) bool { return e.bad != nil })
		if n < 0 {
			n = len(evs)
		}
		if n > 0 {
			k, o := v.applyOrIsolate(ctx, p, evs[:n], msgs)
			applied += k
			if o != done {
				return applied, o
			}
		}
		if n < len(evs) {
			if o := v.setAside(ctx, p, evs[n], evs[n].bad); o != done {
				return applied, o
			}
			n++
		}
		evs = evs[n:]
	}
	return applied, done
}

// decoded is an event of a batch, or why it could not be read (bad).
type decoded struct {
	seq     uint64
	subject string
	at      time.Time
	p       events.Payload
	bad     error
}

// outcome is how an attempt at events ended.
type outcome int

const (
	done     outcome = iota // applied (or set aside), checkpointed
	failed                  // failed the same way permanentTries times: for good
	stopping                // the worker stops; the events come again
	sentBack                // earlier events are in another worker's hands; these come again
)

// applyOrIsolate applies a run of events; when the run fails for good, it
// applies them again one at a time, and sets aside each that fails alone.
// It returns how many events it applied.
func (v *Engine) applyOrIsolate(ctx context.Context, p *partition, evs []decoded, msgs []jetstream.Msg) (int, outcome) {
	n, o, err := v.applyRun(ctx, p, evs, msgs)
	if o != failed {
		return n, o
	}
	if len(evs) == 1 {
		return 0, v.setAside(ctx, p, evs[0], err)
	}
	p.log.Warn("views: a run of events fails the same way each time; applying them one at a time", "first", evs[0].seq,
		"last", evs[len(evs)-1].seq, "err", err)
	applied := 0
	for _, e := range evs {
		n, o, err := v.applyRun(ctx, p, []decoded{e}, msgs)
		if o == failed {
			o = v.setAside(ctx, p, e, err)
		}
		if o != done {
			return applied, o
		}
		applied += n
	}
	return applied, done
}

// permanentTries is how many times a run must fail the same permanent way
// (permanent) before it is taken to fail for good.
const permanentTries = 3

// applyRun applies events in one batch, trying again until it is done or
// the worker stops; a failure that is no passing one (permanent), met
// permanentTries times in a row, ends it as failed, with the error.
func (v *Engine) applyRun(ctx context.Context, p *partition, evs []decoded, msgs []jetstream.Msg) (int, outcome, error) {
	var b *Batch
	permanents := 0
	for attempt := 0; ; attempt++ {
		if o := v.ready(ctx, p, evs[0].seq, msgs); o != done {
			return 0, o, nil
		}
		// In-flight work finishes on shutdown: the batch's writes are not
		// cut off by ctx, only bounded in time.
		actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var err error
		b, err = v.attempt(actx, p, b, evs)
		cancel()
		if err == nil {
			return b.events, done, nil
		}
		switch {
		case errors.Is(err, view.ErrConflict):
			p.loaded = false
			p.st.ForgetAll()
			permanents = 0
		case permanent(err):
			if permanents++; permanents >= permanentTries {
				return 0, failed, err
			}
			fallthrough
		default:
			v.health.fail(partitionComponent(p.name), false)
			v.store.CountError("apply")
			p.log.Warn("views: applying events failed; retrying", "events", len(evs), "err", err)
		}
		// Not told the server it is still at them (InProgress): a
		// worker retrying may no longer hold the partition (a process
		// that was paused, whose pin lapsed meanwhile, retries what its
		// JetStream cannot yet serve while it catches up), and events
		// it kept in progress would not be handed to the worker that
		// holds it, whose newer events would wait behind them (inOrder).
		// Redelivered after the ack wait, to that worker or this one, they
		// are applied again exactly.
		if !retry.Apply.Sleep(ctx, attempt) {
			return 0, stopping, nil // the events will be redelivered
		}
	}
}

// ready says whether events from first on may be applied now: with
// several processes, another's worker may hold earlier events of the
// partition (see inOrder), and then these are sent back to wait for them.
// Once they have waited fillAfter and the checkpoint has not moved, no
// one is applying the earlier events (the worker that held them stalled,
// or the consumer lost them): this worker reads them from the log and
// applies them itself (fillGap), and then these.
func (v *Engine) ready(ctx context.Context, p *partition, first uint64, msgs []jetstream.Msg) outcome {
	if v.opts.Exclusive {
		return done
	}
	filling := false
	for {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ok, err := v.inOrder(rctx, p, first)
		cancel()
		if err != nil || ok {
			p.waiting = time.Time{}
			return done
		}
		if !filling && p.sentBackFor(time.Now()) < fillAfter {
			break
		}
		o := v.fillGap(ctx, p, first)
		if o == stopping {
			return stopping
		}
		if o != done {
			break
		}
		filling = true
	}
	p.log.Debug("views: earlier events of the partition are in another worker's hands; these come again", "first", first, "checkpoint", p.seq)
	for _, m := range msgs {
		_ = m.NakWithDelay(ackWait / 4)
	}
	return sentBack
}

// attempt is one try at a batch of events: applied in memory, their
// webhooks handed to the outbox, written. b is the previous try's batch,
// nil on the first.
func (v *Engine) attempt(ctx context.Context, p *partition, b *Batch, evs []decoded) (*Batch, error) {
	// Nothing is made of an event before it is on disk: a view or a
	// webhook delivery must not outlive, in a power cut, the event it
	// came from.
	if err := v.store.Durable(ctx, evs[len(evs)-1].seq); err != nil {
		return b, err
	}
	if err := v.load(ctx, p); err != nil {
		return b, err
	}
	if b == nil {
		b = NewBatch(ctx, p.st, v.views, true, func(string) string { return p.name })
	} else {
		b = b.Retry(ctx, p.st)
	}
	for _, e := range evs {
		if e.seq <= p.seq {
			continue // applied and checkpointed before: a redelivery
		}
		if err := b.Apply(e.seq, e.subject, e.at, e.p); err != nil {
			return b, fmt.Errorf("event %d (%s): %w", e.seq, e.p.EventType(), err)
		}
	}
	if b.events == 0 {
		return b, nil
	}
	if err := b.applier.Dispatch(ctx); err != nil {
		return b, err
	}
	// Counted before the write shows: whoever saw the views catch up
	// (WaitApplied, which the watcher wakes) finds the count including
	// what it waited for. A write that fails takes its count back, and is
	// tried again.
	v.applied.Add(uint64(b.events))
	if err := v.write(ctx, p, b); err != nil {
		v.applied.Add(^uint64(b.events - 1))
		return b, err
	}
	return b, nil
}

// inOrder reports whether the partition's events up to first are applied
// (checkpointed), so that a batch starting at first may be applied now.
//
// Pinning a partition to one worker is not exclusive: a worker busy with a
// batch for longer than the pin lasts (writes stalled by a leader's
// election) loses it, and the next worker is handed the newer events while
// the first still applies the older. Applied first, the newer would mark
// the entries they change with their sequence, and the older, found behind
// it, would be skipped as applied: lost from the views for good. So a
// batch waits until everything before it in the partition is applied; the
// checkpoint is read afresh before a batch is sent back.
func (v *Engine) inOrder(ctx context.Context, p *partition, first uint64) (bool, error) {
	for fresh := false; ; fresh = true {
		if err := v.load(ctx, p); err != nil {
			return false, err
		}
		if first <= p.seq+1 {
			return true, nil
		}
		next, err := v.store.NextSeqOf(ctx, p.name, p.seq+1)
		if err != nil {
			return false, err
		}
		if next == 0 || next >= first {
			return true, nil // nothing of the partition in between
		}
		if fresh {
			return false, nil
		}
		p.loaded = false // the checkpoint may have moved since this worker read it
	}
}

// load reads the partition's checkpoint and pending forget, unless this
// worker knows them already.
func (v *Engine) load(ctx context.Context, p *partition) error {
	if p.loaded {
		return nil
	}
	cp, err := v.readCheckpoint(ctx, p.name)
	if err != nil {
		return err
	}
	var pending Pending
	if _, _, err := p.st.Get(ctx, PendingKey(p.name), &pending); err != nil {
		return err
	}
	p.seq, p.counts, p.pending, p.stored = cp.Seq, cp.Counts, pending, !pending.Forget.Empty()
	v.metrics.pending(p.name, pending.Forget)
	if cp.Seq == 0 {
		p.counts = &view.Counts{} // a partition that never applied anything holds nothing
	}
	p.loaded = true
	return nil
}

// write writes a batch: what the log is to forget first, then the entries,
// then the checkpoint, rank by rank.
func (v *Engine) write(ctx context.Context, p *partition, b *Batch) error {
	runs, deltas := b.Changes()
	delta := deltas[p.name]
	// The checkpoint never goes back: an event set aside, applied again
	// later (aside.go), is behind it.
	through := max(b.last, p.seq)
	pending := p.pending
	pending.Forget.Add(b.Forget)
	if !b.Forget.Empty() {
		pending.UpTo = max(pending.UpTo, through)
	}
	var ranks [][]view.Change
	if !pending.Forget.Empty() || p.stored {
		// Cleared (written empty) once done, so that a restart does not
		// do it again.
		pending.Seq = through
		ranks = append(ranks, []view.Change{{Key: PendingKey(p.name), Rec: &pending, Blind: true}})
	}
	ranks = append(ranks, runs...)
	var last []view.Change // what says which events are applied, or set aside
	if b.aside != nil {
		last = append(last, view.Change{Key: AsideKey(p.name), Rec: b.aside, Blind: true})
	}
	counts := p.counts
	if counts != nil {
		c := *counts
		c.Add(delta)
		counts = &c
	}
	cp := &view.Checkpoint{Meta: view.Meta{Seq: through}, Counts: counts}
	ranks = append(ranks, append(last, view.Change{Key: view.CheckpointKey(p.name), Rec: cp, Blind: true}))
	// Each rank's writes are pipelined, and a rank is sent only once every
	// write of the ranks before it is stored. Pipelined, a write is stored
	// even when one sent before it failed (its compare-and-swap lost to
	// another worker in a hand-over, or the stream changed leader), and an
	// entry that says its events are applied (an inbox, the checkpoint)
	// must not be stored past one of the entries those events changed (a
	// list page): the worker, applying the batch again, would skip the
	// events, and the page's changes would be lost for good.
	for _, rank := range ranks {
		if err := p.st.Write(ctx, rank); err != nil {
			return err
		}
	}
	p.seq, p.counts, p.pending, p.stored = through, counts, pending, !pending.Forget.Empty()
	v.metrics.pending(p.name, pending.Forget)
	return nil
}

// purgeTimeout bounds one try at erasing what deletions took away.
const purgeTimeout = 2 * time.Minute

// forget makes the batch's deletions final in the log, once the views reflect
// every event they concern, retrying until it is done or the worker stops.
// An inbox's thousand messages can take a while (much longer where erasing
// rewrites a block), so the erasure has its own time, and tells the server
// it is still at it. The subjects it purges lose only what the checkpoint
// covers (events.Store.Forget): an event stored on one since is still to
// come to this worker, which could never apply it, nor checkpoint its
// sequence, once it was gone.
func (v *Engine) forget(ctx context.Context, p *partition, last jetstream.Msg) {
	if p.pending.Forget.Empty() || p.seq < p.pending.UpTo {
		return
	}
	for attempt := 0; ; attempt++ {
		fctx, cancel := context.WithTimeout(context.Background(), purgeTimeout)
		// The views that let it go on disk first: a power cut after the
		// log forgot a deleted inbox, with views on disk from before its
		// deletion, would bring it back (and no event would be left to
		// delete it again). Then what the log forgot, before the pending
		// forget is cleared: cleared on disk with the forgetting lost, it
		// would leave the events in the log for good.
		err := v.store.Flush(fctx, "KV_"+BucketName(v.gen))
		if err == nil {
			err = v.store.Forget(fctx, p.pending.Forget, p.seq, inProgress(last))
		}
		if err == nil {
			err = v.store.Flush(fctx, events.StreamName)
		}
		cancel()
		if err == nil {
			p.pending = Pending{}
			v.metrics.pending(p.name, events.Forget{})
			return
		}
		v.store.CountError("purge")
		p.log.Warn("views: forgetting what was deleted failed; retrying", "err", err)
		if !retry.Apply.Sleep(ctx, attempt) {
			return // done by the next worker, from f.<part>
		}
	}
}

// inProgress returns a function that tells the server, at most every
// second, that msg is still being worked on, so that it is not handed to
// another worker after the ack wait.
func inProgress(msg jetstream.Msg) func() {
	if msg == nil {
		return nil
	}
	last := time.Now()
	return func() {
		if time.Since(last) >= time.Second {
			_ = msg.InProgress()
			last = time.Now()
		}
	}
}
