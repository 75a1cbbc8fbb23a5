package view

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
	a1, cancelA1 := h.Subscribe(EntryTopic("a"))
	a2, cancelA2 := h.Subscribe(EntryTopic("a"))
	b, cancelB := h.Subscribe(EntryTopic("b"))
	part, cancelPart := h.Subscribe(PartitionTopic("a")) // the same name, another kind of topic
	defer cancelB()
	defer cancelPart()
	if h.Waiters() != 4 {
		t.Fatalf("%d waiters, want 4", h.Waiters())
	}
	h.Notify(EntryTopic("a"))
	h.Notify(EntryTopic("a")) // coalesces: one signal for many changes
	if !received(a1) || !received(a2) || received(b) || received(part) {
		t.Fatal("a change to entry a woke the wrong waiters")
	}
	if received(a1) {
		t.Error("two changes gave two signals; they coalesce into one")
	}
	cancelA1()
	cancelA1() // harmless twice
	h.Notify(EntryTopic("a"))
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
	h.Checkpoint("p1", 10)
	if !received(ch) || h.Applied("p1") != 10 {
		t.Fatalf("checkpoint 10: woken %v, applied %d", false, h.Applied("p1"))
	}
	h.Checkpoint("p1", 7) // an older checkpoint seen late
	if received(ch) || h.Applied("p1") != 10 {
		t.Errorf("an older checkpoint moved the partition back to %d, or woke its waiters", h.Applied("p1"))
	}
	if h.Applied("p2") != 0 {
		t.Errorf("a partition never seen applied %d", h.Applied("p2"))
	}
}
