package view

import (
	"sync"
)

// cache keeps recently read view entries in memory, kept current by every
// write to the views: the process's watcher sees them all, in order; a
// single node's workers, its only writers, tell it of theirs
// (engine.observer). Reads that hit it cost no NATS round trip. It holds
// at most maxBytes of values.
//
// A read that misses marks the key pending before it asks NATS. If a
// write to that key is seen meanwhile, it replaces the mark with the
// newer value, and the slower read's answer is dropped; and an entry
// takes a value only of a newer revision than its own (workers of
// different partitions tell theirs side by side); so the cache never
// goes back to an older value. A command's own write reaches the cache
// before its checkpoint does (both are told in the order stored), so
// read-your-writes holds through the cache.
type cache struct {
	mu       sync.Mutex
	entries  map[string]*cached
	bytes    int
	maxBytes int
}

type cached struct {
	value   []byte // nil: absent (deleted); meaningless while pending
	rev     uint64 // the revision value is of; 0: unknown
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

// fill stores what a missed read got (value of revision rev), unless a
// write seen meanwhile got there first.
func (c *cache) fill(key string, token *cached, value []byte, rev uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] == token {
		c.setLocked(key, &cached{value: value, rev: rev})
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

// update records a write seen (value nil: deleted) at revision rev. Keys
// the cache does not hold are left out; a pending one takes the value, a
// held one only a newer value than its own.
func (c *cache) update(key string, value []byte, rev uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, held := c.entries[key]; held && (e.pending || rev > e.rev) {
		c.setLocked(key, &cached{value: value, rev: rev})
	}
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
