package sealed

import (
	"container/list"
	"sync"
	"tempmail/mailbox"

	"golang.org/x/sync/singleflight"
)

// Cache keeps opened contents, least recently used out first, within a
// byte budget: a message's content never changes while it exists, and
// opening it again costs a read of its event, its key and a decryption.
type Cache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // of *cachedContent, most recent first
	byID     map[string]*list.Element
	opening  singleflight.Group // contents being opened, by message id
}

type cachedContent struct {
	id   string
	c    *mailbox.Content
	size int
}

// NewCache makes a cache of opened contents of at most about maxBytes.
func NewCache(maxBytes int) *Cache {
	return &Cache{maxBytes: maxBytes, order: list.New(), byID: map[string]*list.Element{}}
}

func contentSize(c *mailbox.Content) int {
	n := 512 + len(c.Text) + len(c.HTML) + len(c.Raw) + len(c.Subject) + len(c.Preview)
	for k, v := range c.Headers {
		n += len(k) + len(v) + 32
	}
	if c.Auth != nil {
		n += 256 + 128*len(c.Auth.DKIM)
	}
	for _, l := range c.Links {
		n += len(l.URL) + len(l.Text) + 32
	}
	return n + 128*len(c.Attachments)
}

// Open returns the content of the message id: the one kept, or else what
// open returns, kept from then on. Callers must not change it. Many
// readers of a message that just arrived (every event stream on its
// inbox) ask for it at once: they share one open.
func (cc *Cache) Open(id string, open func() (*mailbox.Content, error)) (*mailbox.Content, error) {
	if c := cc.get(id); c != nil {
		return c, nil
	}
	v, err, _ := cc.opening.Do(id, func() (any, error) {
		c, err := open()
		if err != nil {
			return nil, err
		}
		cc.put(id, c)
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*mailbox.Content), nil
}

func (cc *Cache) get(id string) *mailbox.Content {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.byID[id]
	if !ok {
		return nil
	}
	cc.order.MoveToFront(e)
	return e.Value.(*cachedContent).c
}

func (cc *Cache) put(id string, c *mailbox.Content) {
	size := contentSize(c)
	if size > cc.maxBytes/8 {
		return // a few large messages would push out many small ones
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if _, ok := cc.byID[id]; ok {
		return
	}
	cc.byID[id] = cc.order.PushFront(&cachedContent{id: id, c: c, size: size})
	cc.bytes += size
	for cc.bytes > cc.maxBytes {
		last := cc.order.Back()
		cc.removeLocked(last.Value.(*cachedContent).id)
	}
}

// Clear empties the cache.
func (cc *Cache) Clear() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.order.Init()
	cc.byID = map[string]*list.Element{}
	cc.bytes = 0
}

// Remove lets go of the content of the message id: it is being deleted.
func (cc *Cache) Remove(id string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.removeLocked(id)
}

func (cc *Cache) removeLocked(id string) {
	if e, ok := cc.byID[id]; ok {
		cc.bytes -= e.Value.(*cachedContent).size
		cc.order.Remove(e)
		delete(cc.byID, id)
	}
}
