package view

import "testing"

func TestCacheNeverGoesBackToAnOlderValue(t *testing.T) {
	t.Parallel()
	c := newCache(1 << 20)
	_, ok, token := c.lookup("k")
	if ok {
		t.Fatal("hit on an empty cache")
	}
	// The watcher sees a newer write while the read that missed is out.
	c.update("k", []byte("v2"), 2)
	c.fill("k", token, []byte("v1"), 1)
	if e, ok, _ := c.lookup("k"); !ok || string(e.value) != "v2" {
		t.Fatalf("got %q %v, want the watcher's newer v2", e.value, ok)
	}
	// Writes to keys the cache does not hold are not kept.
	c.update("other", []byte("x"), 3)
	if _, ok, tok := c.lookup("other"); ok {
		t.Fatal("an unread key was cached from the watcher")
	} else {
		c.forget("other", tok)
	}
	// A deletion is cached as absent.
	c.update("k", nil, 4)
	if e, ok, _ := c.lookup("k"); !ok || e.value != nil {
		t.Fatalf("after a deletion: %q %v", e.value, ok)
	}
}

// A single node's workers tell the cache of their writes side by side, so
// a write may be told after a newer one to the same key.
func TestCacheKeepsTheNewestRevisionWhateverTheOrderTold(t *testing.T) {
	t.Parallel()
	c := newCache(1 << 20)
	_, _, token := c.lookup("k")
	c.fill("k", token, []byte("v5"), 5)
	c.update("k", []byte("v4"), 4) // told late: older than what was read
	if e, _, _ := c.lookup("k"); string(e.value) != "v5" {
		t.Fatalf("got %q, want v5: an older write replaced a newer read", e.value)
	}
	c.update("k", []byte("v7"), 7)
	c.update("k", []byte("v6"), 6)
	if e, _, _ := c.lookup("k"); string(e.value) != "v7" {
		t.Fatalf("got %q, want v7", e.value)
	}
	c.update("k", nil, 8)
	if e, ok, _ := c.lookup("k"); !ok || e.value != nil {
		t.Fatalf("after a deletion: %q %v", e.value, ok)
	}
}

func TestCacheStaysWithinItsBytes(t *testing.T) {
	t.Parallel()
	c := newCache(1000)
	for i := range 100 {
		key := string(rune('a'+i%26)) + string(rune('a'+i/26))
		_, _, tok := c.lookup(key)
		c.fill(key, tok, make([]byte, 100), uint64(i+1))
		if c.bytes > 1000 {
			t.Fatalf("cache holds %d bytes, limit 1000", c.bytes)
		}
	}
	if len(c.entries) == 0 || len(c.entries) > 10 {
		t.Errorf("%d entries of ~100 bytes in a 1000-byte cache", len(c.entries))
	}
}
