package engine

import (
	"context"
	"math/rand/v2"
	"time"

	"tempmail/events"
	"tempmail/retry"
)

// A replicated consumer can lose track of events it handed out. Around the
// leader changes that follow a node's stall (a paused VM resuming, its
// groups' leaders stepping down), nats-server was seen to count events of a
// partition as delivered while none of them was in flight or acknowledged:
// it never delivers them again. The partition's views then stay behind for
// good, with nothing logged: they wait for events no worker will get, or a
// worker is handed newer ones, which must wait for the lost (inOrder), and
// sends them back for ever.
//
// A worker handed newer events reads the lost ones from the log itself
// (gap.go). When none come at all, watchPassed, in every process of a
// cluster, every passedCheck, finds a partition whose log holds events
// after its checkpoint while its consumer says it delivered them and has
// none pending or in flight, seen twice, ackWait apart, and starts the
// consumer again just after the checkpoint. A needless restart costs only
// events delivered twice, which the worker finds applied and skips.
const passedCheck = 5 * time.Second

// watchPassed checks the partitions for passed-over events every
// passedCheck until ctx ends.
func (v *Engine) watchPassed(ctx context.Context) {
	// Processes started together check at different moments.
	t := time.NewTimer(passedCheck/2 + rand.N(passedCheck))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, part := range v.store.Partitions() {
			cctx, cancel := context.WithTimeout(ctx, passedCheck)
			v.checkPassed(cctx, part)
			cancel()
		}
		t.Reset(passedCheck)
	}
}

// checkPassed restarts a partition's consumer after its checkpoint when
// the log holds events after it that the consumer holds neither pending nor
// in flight, twice in a row, ackWait apart: not a hand-over caught midway.
func (v *Engine) checkPassed(ctx context.Context, part string) {
	// The order matters: the partition's newest event is read first, so
	// that a consumer then found with nothing pending or in flight has
	// delivered it, and its worker has checkpointed it before it was
	// acknowledged (worker.go, step 5), unless it was lost.
	last, err := v.store.LastSeqOf(ctx, part)
	if err != nil || last <= v.reader.Hub().Applied(part) {
		return // the views have it, as far as this process has seen
	}
	cp, passed := v.passedOver(ctx, part, last)
	if !passed || !(retry.Schedule{First: ackWait, Max: ackWait}).Sleep(ctx, 0) {
		return
	}
	if again, passed := v.passedOver(ctx, part, last); passed && again == cp {
		v.restartPassed(ctx, part, cp, last, "nothing pending or in flight")
	}
}

// passedOver reports whether the partition's consumer says it delivered
// events up to last and holds none of them pending or in flight, while
// the checkpoint, which it returns, is before last.
func (v *Engine) passedOver(ctx context.Context, part string, last uint64) (uint64, bool) {
	cons, err := v.js.Consumer(ctx, events.StreamName, v.ConsumerName(part))
	if err != nil {
		return 0, false
	}
	info := cons.CachedInfo()
	if info.NumPending > 0 || info.NumAckPending > 0 || info.Delivered.Stream < last {
		return 0, false
	}
	cp, err := v.readCheckpoint(ctx, part)
	if err != nil || cp.Seq >= last {
		return 0, false
	}
	return cp.Seq, true
}

// restartPassed starts a partition's consumer again just after the
// checkpoint at cp, for events up to at least last that it passed over.
func (v *Engine) restartPassed(ctx context.Context, part string, cp, last uint64, why string) bool {
	v.metrics.restarts.WithLabelValues(part).Inc()
	v.log.Warn("views: the partition's consumer passed over events it never delivered; starting it again after the checkpoint",
		"partition", part, "checkpoint", cp, "seen", last, "why", why)
	if _, err := v.js.ResetConsumerToSequence(ctx, events.StreamName, v.ConsumerName(part), cp+1); err != nil {
		v.log.Warn("views: starting the consumer again failed; the next check tries again", "partition", part, "err", err)
		return false
	}
	return true
}
