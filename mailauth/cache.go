package mailauth

import (
	"container/list"
	"sync"
	"time"
)

// expiringCache keeps values until they expire, least recently used out
// first beyond its bound: the Resolver's answers, and the Verifier's
// verdicts on keys.
type expiringCache[V any] struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *entry[V], most recent first
	byKey map[string]*list.Element
}

type entry[V any] struct {
	key     string
	v       V
	expires time.Time
}

func newExpiringCache[V any](max int) *expiringCache[V] {
	return &expiringCache[V]{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *expiringCache[V]) get(key string, now time.Time) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return v, false
	}
	if ce := e.Value.(*entry[V]); now.Before(ce.expires) {
		c.order.MoveToFront(e)
		return ce.v, true
	}
	c.order.Remove(e)
	delete(c.byKey, key)
	return v, false
}

func (c *expiringCache[V]) put(key string, v V, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		e.Value = &entry[V]{key, v, expires}
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&entry[V]{key, v, expires})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*entry[V]).key)
	}
}
