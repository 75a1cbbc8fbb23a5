package view

import "sync"

// Hub fans view changes out to waiters in this process. It is fed by one KV
// watcher per process (the engine's), so any number of waiting requests costs no NATS
// consumers and no polling: a waiter blocks on a channel until its topic
// changes, then reads the views again.
type Hub struct {
	mu      sync.Mutex
	waiters map[Topic]map[chan struct{}]struct{}
	applied map[string]uint64 // partition -> highest checkpoint seen
}

// Topic is what a waiter waits for: an entry's writes (EntryTopic) or a
// partition's progress (PartitionTopic).
type Topic struct {
	kind topicKind
	id   string
}

type topicKind uint8

const (
	entryTopic topicKind = iota + 1
	partitionTopic
)

// EntryTopic changes whenever the entry key is written: the views make an
// entry whose writes a reader waits for (an inbox's, written by every
// event that changes its messages) the topic of those writes.
func EntryTopic(key string) Topic { return Topic{entryTopic, key} }

// PartitionTopic changes whenever a partition has applied more events.
func PartitionTopic(part string) Topic { return Topic{partitionTopic, part} }

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{waiters: map[Topic]map[chan struct{}]struct{}{}, applied: map[string]uint64{}}
}

// Subscribe returns a channel that receives a value after topic changes, and
// a function that ends the subscription. Changes coalesce: a slow reader sees
// one signal for many changes, which is all it needs to read again.
func (h *Hub) Subscribe(topic Topic) (<-chan struct{}, func()) {
	return h.SubscribeAll([]Topic{topic})
}

// SubscribeAll is Subscribe to any of topics, on one channel: for a waiter
// whose answer may come from any of several entries.
func (h *Hub) SubscribeAll(topics []Topic) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	for _, topic := range topics {
		set := h.waiters[topic]
		if set == nil {
			set = map[chan struct{}]struct{}{}
			h.waiters[topic] = set
		}
		set[ch] = struct{}{}
	}
	h.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			for _, topic := range topics {
				set := h.waiters[topic]
				delete(set, ch)
				// A set leaves the map only when its last channel does.
				if len(set) == 0 {
					delete(h.waiters, topic)
				}
			}
			h.mu.Unlock()
		})
	}
}

// Waiters is the number of open subscriptions, for metrics and tests: a
// waiter on several topics counts once for each.
func (h *Hub) Waiters() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, set := range h.waiters {
		n += len(set)
	}
	return n
}

// Notify wakes every subscriber of topic.
func (h *Hub) Notify(topic Topic) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.waiters[topic] {
		select {
		case ch <- struct{}{}:
		default: // already signalled
		}
	}
}

// Checkpoint records that partition part has applied everything up to seq,
// and wakes the partition's subscribers if that is further than seen.
func (h *Hub) Checkpoint(part string, seq uint64) {
	h.mu.Lock()
	raised := seq > h.applied[part]
	if raised {
		h.applied[part] = seq
	}
	h.mu.Unlock()
	if raised {
		h.Notify(PartitionTopic(part))
	}
}

// Applied is the highest checkpoint seen for part.
func (h *Hub) Applied(part string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.applied[part]
}
