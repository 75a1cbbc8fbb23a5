package projections

import (
	"context"
	"fmt"
	"testing"
	"time"

	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
)

// Two processes' views share one event store: each partition is applied by
// one of them at a time; when one stops, the other takes its partitions over
// and every event is applied once in effect.
func TestPartitionsAreHandedOverWhenAWorkerStops(t *testing.T) {
	t.Parallel()
	node := natstest.StartNode(t, t.TempDir())
	store := eventstest.OpenStore(t, node)
	start := func() *Views { return startProcess(t, node, store, Options{}) }
	a := start()

	// Many inboxes, so that every partition has work.
	var inboxes []inboxRef
	for i := range 48 {
		inboxes = append(inboxes, createInbox(t, store, fmt.Sprintf("h%02d@tempmail.test", i), 0))
	}
	sent := map[string]int{}
	send := func(round string) {
		for _, in := range inboxes {
			for j := range 3 {
				deliver(t, store, in, fmt.Sprintf("%s-%d", round, j))
				sent[in.id]++
			}
		}
	}
	send("before")
	caughtUp(t, a)
	// B starts beside A, which holds every partition's pin.
	b := start()
	t.Cleanup(b.Stop)
	pins := pinnedClients(t, store, a)
	beforeA, beforeB := a.Applied(), b.Applied()
	if n := uint64(len(inboxes) + 3*len(inboxes)); beforeA != n {
		t.Errorf("A applied %d events; %d were stored", beforeA, n)
	}

	a.Stop() // A unpins its partitions as it stops
	// At once, not after the pinned TTL: no partition is still pinned to A.
	for part, pin := range pinnedClients(t, store, b) {
		if pin != "" && pin == pins[part] {
			t.Errorf("partition %s is still pinned to the stopped worker", part)
		}
	}
	send("after")
	caughtUp(t, b)
	if a.Applied() != beforeA {
		t.Errorf("the stopped worker applied %d more events", a.Applied()-beforeA)
	}
	total := a.Applied() + b.Applied()
	events := uint64(len(inboxes) + 2*3*len(inboxes)) // InboxCreated, MailReceived
	if beforeA == 0 {
		t.Fatalf("A applied nothing before it stopped: nothing to hand over (B %d)", beforeB)
	}
	if b.Applied() == beforeB {
		t.Fatal("B applied nothing after A stopped")
	}
	t.Logf("A applied %d events before it stopped; B %d before, %d in all; %d events stored", beforeA, beforeB, b.Applied(), events)

	// Every message is in its inbox once, and every entry was written by
	// the event it says.
	for _, in := range inboxes {
		got, err := b.Inbox(ctxT(t), in.id)
		if err != nil {
			t.Fatal(err)
		}
		list, err := b.Messages(ctxT(t), got)
		if err != nil {
			t.Fatal(err)
		}
		if got.Count != sent[in.id] || len(list) != sent[in.id] {
			t.Errorf("inbox %s: count %d, listed %d, sent %d", in.addr, got.Count, len(list), sent[in.id])
		}
		seen := map[string]bool{}
		for _, m := range list {
			if seen[m.ID] {
				t.Errorf("inbox %s lists message %s twice", in.addr, m.ID)
			}
			seen[m.ID] = true
		}
	}
	if total < events {
		t.Errorf("applied %d events in all, fewer than the %d stored", total, events)
	}
}

// pinnedClients returns, per partition, the id of the client its consumer
// is pinned to ("" for none).
func pinnedClients(t *testing.T, store *events.Store, v *Views) map[string]string {
	t.Helper()
	pins := map[string]string{}
	for _, part := range store.Partitions() {
		cons, err := store.Stream().Consumer(ctxT(t), v.ConsumerName(part))
		if err != nil {
			t.Fatal(err)
		}
		info, err := cons.Info(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range info.PriorityGroups {
			pins[part] = g.PinnedClientID
		}
	}
	return pins
}

// caughtUp waits until every event stored so far has been applied (by
// whichever worker holds each partition).
func caughtUp(t *testing.T, v *Views) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	defer cancel()
	if err := v.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
}
