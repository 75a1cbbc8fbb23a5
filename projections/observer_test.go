package projections

import (
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
)

// A single node's views have no watcher: its workers tell the read cache
// and the waiters what they wrote. Reads through the cache still see every
// write, and an inbox's waiters still wake, as with the watcher.
func TestASingleNodeTellsItsReadersWithoutAWatcher(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	for _, exclusive := range []bool{false, true} {
		node := natstest.StartNode(t, t.TempDir())
		store := eventstest.OpenStore(t, node)
		v := startProcess(t, node, store, Options{Exclusive: exclusive, Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})
		t.Cleanup(v.Stop)

		// The watcher is a consumer of the views bucket's stream.
		st, err := node.JS.Stream(ctx, "KV_"+bucketName(v.Generation()))
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if watched := info.State.Consumers > 0; watched == exclusive {
			t.Fatalf("exclusive %v: %d consumers of the views bucket", exclusive, info.State.Consumers)
		}

		ev := events.InboxCreated{InboxID: uuid.NewString(), Address: "one@one.test", Token: "tok" + uuid.NewString(),
			DomainID: 1, CreatedAt: time.Unix(1700000000, 0).UTC()}
		created, err := store.CreateInbox(ctx, ev, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.WaitApplied(ctx, created); err != nil {
			t.Fatal(err)
		}
		in := inboxRef{id: ev.InboxID, addr: ev.Address, lifecycleSeq: created.Seq}
		for n := 1; n <= 3; n++ {
			// The inbox is read, so cached, before each message: a cache
			// the workers did not keep current would answer the count
			// before.
			got, err := v.InboxByAddress(ctx, in.addr)
			if err != nil || got.Count != n-1 {
				t.Fatalf("exclusive %v: before message %d: %+v %v", exclusive, n, got, err)
			}
			changed, cancel := v.Hub().Subscribe(InboxTopic(in.id))
			_, ack := deliver(t, store, in, "m")
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatalf("exclusive %v: message %d did not wake the inbox's waiters", exclusive, n)
			}
			cancel()
			if err := v.WaitApplied(ctx, ack); err != nil {
				t.Fatal(err)
			}
			if got, err = v.Inbox(ctx, in.id); err != nil || got.Count != n {
				t.Fatalf("exclusive %v: after message %d: count %d %v", exclusive, n, got.Count, err)
			}
			if got, err = v.InboxByAddress(ctx, in.addr); err != nil || got.Count != n {
				t.Fatalf("exclusive %v: after message %d, by address: count %d %v", exclusive, n, got.Count, err)
			}
		}
	}
}
