package projections

import "sync"

// Hub fans view changes out to waiters in this process. It is fed by one KV
// watcher per process, so any number of waiting requests costs no NATS
// consumers and no polling: a waiter blocks on a channel until its topic
// changes, then re-reads the view.
//
// Topics are view keys: "i.<inboxID>" changes when an inbox gains, loses or
// changes a message; "c.<partition>" when a partition applies an event.
type Hub struct {
	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
	applied map[string]uint64 // partition -> highest checkpoint seen
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{waiters: map[string]map[chan struct{}]struct{}{}, applied: map[string]uint64{}}
}

// Subscribe returns a channel that receives a value after topic changes, and
// a function that ends the subscription. Changes coalesce: a slow reader sees
// one signal for many changes, which is all it needs to re-read.
func (h *Hub) Subscribe(topic string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	set := h.waiters[topic]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		h.waiters[topic] = set
	}
	set[ch] = struct{}{}
	h.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			delete(set, ch)
			// A set leaves the map only when its last channel does, so an
			// emptied set is still the registered one.
			if len(set) == 0 {
				delete(h.waiters, topic)
			}
			h.mu.Unlock()
		})
	}
}

// Waiters is the number of open subscriptions, for metrics and tests.
func (h *Hub) Waiters() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, set := range h.waiters {
		n += len(set)
	}
	return n
}

// notify wakes every subscriber of topic.
func (h *Hub) notify(topic string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.waiters[topic] {
		select {
		case ch <- struct{}{}:
		default: // already signalled
		}
	}
}

// checkpoint records that partition part has applied everything up to seq.
func (h *Hub) checkpoint(part string, seq uint64) {
	h.mu.Lock()
	raised := seq > h.applied[part]
	if raised {
		h.applied[part] = seq
	}
	h.mu.Unlock()
	if raised {
		h.notify(checkpointKey(part))
	}
}

// appliedSeq is the highest checkpoint seen for part.
func (h *Hub) appliedSeq(part string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.applied[part]
}
