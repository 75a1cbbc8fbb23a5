package engine

import (
	"context"
	"time"

	"tempmail/events"
)

// A worker handed a batch whose partition has earlier events not yet
// applied sends it back, for a while (ready): in a hand-over, the worker
// that held the partition before may still be applying them. When they
// stay unapplied for fillAfter, nobody is at them: the worker that held
// them stalled (a paused process, writes cut off), or the consumer lost
// track of them around leader changes (passed.go). Waiting for their
// redelivery then costs ack waits, round after round (measured: 40 to 60
// s for mail acknowledged after a fault to show). So the worker reads
// them from the log, in order, and applies them itself, then its batch.
// Applying events twice is harmless (every entry records the sequence of
// the last event applied to it), and the order of the partition's events
// is kept: a worker applies from its checkpoint on, never past a gap.

// fillAfter is how long batches wait, sent back, for earlier events
// another worker holds: one send-back's delay.
const fillAfter = ackWait / 4

// sentBackFor tells how long the partition's batches have been sent back
// without its checkpoint moving, and starts counting if they were not.
func (p *partition) sentBackFor(now time.Time) time.Duration {
	if p.waiting.IsZero() || p.waitingAt != p.seq {
		p.waiting, p.waitingAt = now, p.seq
	}
	return now.Sub(p.waiting)
}

// fillGap reads up to maxBatch of the partition's events after its
// checkpoint and before first from the log and applies them. It reports
// done once it applied some; failed when it could read none.
func (v *Engine) fillGap(ctx context.Context, p *partition, first uint64) outcome {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	msgs, err := v.store.ReadPartition(rctx, p.name, p.seq+1, first, maxBatch)
	cancel()
	if err != nil || len(msgs) == 0 {
		p.log.Debug("views: cannot read the events before the batch from the log", "checkpoint", p.seq, "first", first, "err", err)
		return failed
	}
	evs := make([]decoded, len(msgs))
	for i, m := range msgs {
		evs[i] = decoded{seq: m.Sequence, subject: m.Subject}
		evs[i].p, evs[i].at, evs[i].bad = events.Decode(m.Data)
	}
	p.log.Warn("views: applying events that no worker applied, read from the log", "checkpoint", p.seq,
		"from", evs[0].seq, "to", evs[len(evs)-1].seq, "events", len(evs), "held", first)
	v.metrics.fromLog.WithLabelValues(p.name).Add(float64(len(evs)))
	if _, o := v.applyAll(ctx, p, evs, nil); o != done {
		return o
	}
	return done
}
