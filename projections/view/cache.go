package view

import (
	"sync"
)

// cache keeps recently read view entries in memory, kept current by the
// process's watcher, which sees every write to the views in order. Reads
// that hit it cost no NATS round trip. It holds at most maxBytes of values.
//
// A read that misses marks the key pending before it asks NATS. If the
// watcher sees a write to that key meanwhile, it replaces the mark with the
// newer value, and the slower read's answer is dropped; so the cache never
// goes back to an older value. A command's own write reaches the cache
// before its checkpoint does (the watcher delivers in stream order), so
// read-your-writes holds through the cache.
type cache struct {
	mu       sync.Mutex
	entries  map[string]*cached
	bytes    int
	maxBytes int
	// seen is the revision of the last write the watcher applied: every
	// entry then reflects at least every write to its key up to seen (a
	// fill may be newer, never older).
	seen uint64
}

type cached struct {
	value   []byte // nil: absent (deleted); meaningless while pending
	pending bool
	decoded Record // value decoded once, shared by readers, who must not change it
}

func newCache(maxBytes int) *cache {
	return &cache{entries: map[string]*cached{}, maxBytes: maxBytes}
}

// clear drops every entry: after the watcher lost track of writes. A read
// in flight finds its pending mark gone, and its answer is not kept.
func (c *cache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = map[string]*cached{} // a new map: a cleared one keeps its room
	c.bytes = 0
}

// lookup returns a cached entry; ok is false on a miss, in which case the
// returned token must be passed to fill (or forget) with what NATS answered.
func (c *cache) lookup(key string) (e cached, ok bool, token *cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hit, found := c.entries[key]; found && !hit.pending {
		return *hit, true, nil
	}
	token = &cached{pending: true}
	c.setLocked(key, token)
	return cached{}, false, token
}

// keepDecoded attaches a decoded record to the entry holding value, if the
// entry still holds that very value.
func (c *cache) keepDecoded(key string, value []byte, rec Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok && !e.pending && len(e.value) > 0 && len(value) > 0 && &e.value[0] == &value[0] {
		e.decoded = rec
	}
}

// fill stores what a missed read got, unless the watcher got there first.
func (c *cache) fill(key string, token *cached, value []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] == token {
		c.setLocked(key, &cached{value: value})
	}
}

// forget drops a pending mark after a failed read.
func (c *cache) forget(key string, token *cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] == token {
		c.setLocked(key, nil)
	}
}

// update records a write seen by the watcher (value nil: deleted), at
// revision rev. Keys the cache does not hold are left out; a pending one
// takes the value.
func (c *cache) update(key string, value []byte, rev uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, held := c.entries[key]; held {
		c.setLocked(key, &cached{value: value})
	}
	c.seen = rev
}

// position is the revision of the last write the watcher applied.
func (c *cache) position() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

// setLocked replaces (e nil: removes) an entry and keeps within maxBytes by
// dropping other entries, in map order: cheap, and good enough for a cache
// whose every entry is kept current.
func (c *cache) setLocked(key string, e *cached) {
	if old, ok := c.entries[key]; ok {
		c.bytes -= len(key) + len(old.value)
		delete(c.entries, key)
	}
	if e == nil {
		return
	}
	size := len(key) + len(e.value)
	for k, old := range c.entries {
		if c.bytes+size <= c.maxBytes {
			break
		}
		if !old.pending {
			c.bytes -= len(k) + len(old.value)
			delete(c.entries, k)
		}
	}
	c.entries[key] = e
	c.bytes += size
}
