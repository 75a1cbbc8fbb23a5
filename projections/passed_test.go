package projections

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
	"tempmail/eventually"
	"tempmail/projections/engine"
	"tempmail/projections/view"
)

// Events a consumer passed over without their being applied (what a
// replicated consumer was seen to do around leader changes after a node
// stalled: events counted as delivered, none in flight) are applied all
// the same: when nothing newer comes, the periodic check starts the
// consumer again after the checkpoint; when newer events do, their worker
// reads the lost ones from the log and applies them first (engine/gap.go).
func TestEventsTheConsumerPassedOverAreAppliedAllTheSame(t *testing.T) {
	t.Parallel()
	for _, newer := range []bool{false, true} {
		t.Run(fmt.Sprintf("newer events %v", newer), func(t *testing.T) {
			t.Parallel()
			node := natstest.StartNode(t, t.TempDir())
			store := eventstest.OpenStore(t, node)
			start := func() *Views { return startProcess(t, node, store, Options{}) }
			v := start()
			in := createInbox(t, store, "passed@tempmail.test", 0)
			_, ack := deliver(t, store, in, "before")
			caughtUp(t, v)
			v.Stop()

			// Three events the consumer hands out and counts as
			// acknowledged, none of which reaches the views: its state
			// as after the stall.
			want := []string{"before"}
			for i := range 3 {
				want = append(want, fmt.Sprintf("passed-%d", i))
				deliver(t, store, in, want[len(want)-1])
			}
			cons, err := node.JS.Consumer(ctxT(t), events.StreamName, v.ConsumerName(ack.Partition))
			if err != nil {
				t.Fatal(err)
			}
			batch, err := cons.Fetch(3, jetstream.FetchPriorityGroup(engine.PriorityGroup), jetstream.FetchMaxWait(10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			var last jetstream.Msg
			for m := range batch.Messages() {
				last = m
			}
			if last == nil {
				t.Fatalf("the consumer handed out nothing: %v", batch.Error())
			}
			if err := last.DoubleAck(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			if info, err := cons.Info(ctxT(t)); err != nil || info.NumPending+uint64(info.NumAckPending) != 0 {
				t.Fatalf("the consumer still has events pending or in flight: %+v %v", info, err)
			}
			// The outside client's pin lapses; the views take over.
			if err := store.Stream().UnpinConsumer(ctxT(t), v.ConsumerName(ack.Partition), engine.PriorityGroup); err != nil {
				t.Fatal(err)
			}

			v = start()
			t.Cleanup(v.Stop)
			if newer {
				want = append(want, "newer")
				deliver(t, store, in, "newer")
			}
			eventually.Within(t, 45*time.Second, "the passed-over events in the inbox, once each", func() error {
				inbox, err := v.Inbox(ctxT(t), in.id)
				if err != nil {
					return err
				}
				msgs, err := v.Messages(ctxT(t), inbox)
				if err != nil {
					return err
				}
				var got []string
				for _, m := range msgs {
					got = append(got, m.Subject)
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					return fmt.Errorf("the inbox lists %q; want %q", got, want)
				}
				return nil
			})
			name, least := "tempmail_projection_consumer_restarts_total", 1.0
			if newer {
				name, least = "tempmail_projection_events_from_log_total", 3
			}
			if got := metric(t, v, name, ack.Partition); got < least {
				t.Errorf("%s = %v; want at least %v", name, got, least)
			}
		})
	}
}

// Views that went back, with their worker running (what a whole cluster's
// power cut leaves: the views' newest writes were not yet on disk, the
// consumer's state was), are written again once the consumer starts again
// after their checkpoint: the worker, which remembers a newer checkpoint,
// reads it again rather than skip the events as applied. It skipped them,
// and acknowledged them, before: the partition then stayed behind for
// good, however often the consumer was started again.
func TestAWorkerWhoseViewsWentBackAppliesAgain(t *testing.T) {
	t.Parallel()
	node := natstest.StartNode(t, t.TempDir())
	store := eventstest.OpenStore(t, node)
	v := startProcess(t, node, store, Options{})
	t.Cleanup(v.Stop)
	in := createInbox(t, store, "wentback@tempmail.test", 0)
	_, first := deliver(t, store, in, "first")
	caughtUp(t, v)
	kv, err := node.JS.KeyValue(ctxT(t), bucketName(v.Generation()))
	if err != nil {
		t.Fatal(err)
	}
	key := view.CheckpointKey(first.Partition)
	before, err := kv.Get(ctxT(t), key)
	if err != nil {
		t.Fatal(err)
	}
	var last events.Ack
	for i := range 3 {
		_, last = deliver(t, store, in, fmt.Sprintf("later-%d", i))
	}
	caughtUp(t, v)

	// The checkpoint goes back to before the later events, and the
	// consumer starts again after it, as the periodic check does.
	if _, err := kv.Put(ctxT(t), key, before.Value()); err != nil {
		t.Fatal(err)
	}
	if _, err := node.JS.ResetConsumerToSequence(ctxT(t), events.StreamName, v.ConsumerName(first.Partition), first.Seq+1); err != nil {
		t.Fatal(err)
	}
	eventually.Within(t, 30*time.Second, "the checkpoint past the later events again", func() error {
		e, err := kv.Get(ctxT(t), key)
		if err != nil {
			return err
		}
		var cp view.Checkpoint
		if err := decode(e.Value(), &cp); err != nil {
			return err
		}
		if cp.Seq < last.Seq {
			return fmt.Errorf("the checkpoint is at %d; the last event is %d", cp.Seq, last.Seq)
		}
		return nil
	})
}
