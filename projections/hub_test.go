package projections

import (
	"testing"
)

// received reports whether ch has a signal waiting.
func received(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestHubWakesTheTopicsSubscribersOnly(t *testing.T) {
	t.Parallel()
	h := NewHub()
	a1, cancelA1 := h.Subscribe(InboxTopic("a"))
	a2, cancelA2 := h.Subscribe(InboxTopic("a"))
	b, cancelB := h.Subscribe(InboxTopic("b"))
	part, cancelPart := h.Subscribe(PartitionTopic("a")) // the same name, another kind of topic
	defer cancelB()
	defer cancelPart()
	if h.Waiters() != 4 {
		t.Fatalf("%d waiters, want 4", h.Waiters())
	}
	h.notify(InboxTopic("a"))
	h.notify(InboxTopic("a")) // coalesces: one signal for many changes
	if !received(a1) || !received(a2) || received(b) || received(part) {
		t.Fatal("a change to inbox a woke the wrong waiters")
	}
	if received(a1) {
		t.Error("two changes gave two signals; they coalesce into one")
	}
	cancelA1()
	cancelA1() // harmless twice
	h.notify(InboxTopic("a"))
	if received(a1) || !received(a2) {
		t.Error("a cancelled subscription was woken, or a live one was not")
	}
	cancelA2()
	if h.Waiters() != 2 {
		t.Errorf("%d waiters after two cancelled, want 2", h.Waiters())
	}
}

func TestHubCheckpointsRiseOnly(t *testing.T) {
	t.Parallel()
	h := NewHub()
	ch, cancel := h.Subscribe(PartitionTopic("p1"))
	defer cancel()
	h.checkpoint("p1", 10)
	if !received(ch) || h.appliedSeq("p1") != 10 {
		t.Fatalf("checkpoint 10: woken %v, applied %d", false, h.appliedSeq("p1"))
	}
	h.checkpoint("p1", 7) // an older checkpoint seen late
	if received(ch) || h.appliedSeq("p1") != 10 {
		t.Errorf("an older checkpoint moved the partition back to %d, or woke its waiters", h.appliedSeq("p1"))
	}
	if h.appliedSeq("p2") != 0 {
		t.Errorf("a partition never seen applied %d", h.appliedSeq("p2"))
	}
}

// Every key that changes what an inbox's readers see wakes the inbox's
// topic: the watcher maps keys to topics (a renamed key prefix would
// otherwise silently stop event streams).
func TestWatchedKeysWakeTheirTopics(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]Topic{
		inboxKey("id-1"):       InboxTopic("id-1"),
		checkpointKey("p3"):    PartitionTopic("p3"),
		pageKey("id-1", 4):     {},
		addressKey("a@b.c"):    {},
		tokenKey("TOKEN"):      {},
		webhookKey("hook-1"):   {},
		pendingKey("p3"):       {},
		tagKey("0123456789ab"): {},
	} {
		if got := topicOf(key); got != want {
			t.Errorf("key %s wakes %+v, want %+v", key, got, want)
		}
	}
}
