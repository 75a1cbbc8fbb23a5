package events

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/mail"
)

// contentRecord is the head of a message's content as it is sealed: this
// JSON on one line (json.Marshal never writes a raw newline), then the text
// body, the HTML body and the raw message as they are, their lengths in the
// head. Bodies kept out of the JSON are neither escaped when stored nor
// unescaped when read (JSON's string handling was a quarter of a rebuild's
// CPU when views were built from it). The rest of the head is the
// message's summary in this package's own shape (storedcontent.go).
type contentRecord struct {
	Version int `json:"v"`
	TextLen int `json:"text_len,omitempty"`
	HTMLLen int `json:"html_len,omitempty"`
	// PreviewRule is how Preview was made (previewRule); absent in
	// records written before it was recorded, whose previews are made
	// again when read (upgradePreview).
	PreviewRule int `json:"preview_rule,omitempty"`
	storedContent
}

const contentV = 4

func encodeContent(c mail.Message) ([]byte, error) {
	if c.Preview == "" {
		c.Preview = previewOf(c)
	}
	head, err := json.Marshal(contentRecord{Version: contentV, TextLen: len(c.Text), HTMLLen: len(c.HTML), PreviewRule: previewRule,
		storedContent: storedOf(&c)})
	if err != nil {
		return nil, err
	}
	data := make([]byte, 0, len(head)+1+len(c.Text)+len(c.HTML)+len(c.Raw))
	data = append(append(append(data, head...), '\n'), c.Text...)
	return append(append(data, c.HTML...), c.Raw...), nil
}

func decodeContent(data []byte) (mail.Message, error) {
	head, rest, found := bytes.Cut(data, []byte("\n"))
	if !found {
		return mail.Message{}, errors.New("content record without its bodies")
	}
	var rec contentRecord
	if err := json.Unmarshal(head, &rec); err != nil {
		return mail.Message{}, err
	}
	if rec.Version != contentV {
		return mail.Message{}, fmt.Errorf("content version %d is not supported (this build reads version %d)", rec.Version, contentV)
	}
	if rec.TextLen < 0 || rec.HTMLLen < 0 || rec.TextLen > len(rest) || rec.HTMLLen > len(rest)-rec.TextLen {
		return mail.Message{}, fmt.Errorf("content record: bodies of %d and %d bytes in %d", rec.TextLen, rec.HTMLLen, len(rest))
	}
	c := rec.message()
	c.Text = string(rest[:rec.TextLen])
	c.HTML = string(rest[rec.TextLen : rec.TextLen+rec.HTMLLen])
	if rest = rest[rec.TextLen+rec.HTMLLen:]; len(rest) > 0 {
		c.Raw = rest
	}
	if rec.PreviewRule < previewRule {
		upgradePreview(&c)
	}
	return c, nil
}

// ContentRef says where a message's content is: in the MailReceived at Seq,
// sealed under the key Key names.
type ContentRef struct {
	MessageID string
	Seq       uint64
	Key       uint64
}

// Content returns what a message says, opened from its sealed record. It
// is of kind NotFound once the message is deleted (its key erased), and
// kept decoded in a bounded cache: it never changes while it exists.
// Callers must not change what it returns.
func (s *Store) Content(ctx context.Context, ref ContentRef) (*mail.Message, error) {
	if c := s.contents.get(ref.MessageID); c != nil {
		return c, nil
	}
	// Many readers of a message that just arrived (every event stream on
	// its inbox) open it once; one reader going away does not fail the
	// others.
	v, err, _ := s.opening.Do(ref.MessageID, func() (any, error) {
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return s.open(octx, ref)
	})
	if err != nil {
		return nil, err
	}
	return v.(*mail.Message), nil
}

// open reads and opens a message's content, and keeps it in the cache.
func (s *Store) open(ctx context.Context, ref ContentRef) (*mail.Message, error) {
	m, err := s.stream.GetMsg(ctx, ref.Seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, ErrErased
	}
	if err != nil {
		return nil, unavailable(err)
	}
	head, sealed, _ := bytes.Cut(m.Data, []byte("\n"))
	if p, _, err := Decode(head); err != nil {
		return nil, fmt.Errorf("content of message %s: %w", ref.MessageID, err)
	} else if mr, ok := p.(*MailReceived); !ok || mr.MessageID != ref.MessageID {
		return nil, fmt.Errorf("event %d is not message %s's MailReceived", ref.Seq, ref.MessageID)
	}
	key, err := s.keys.Get(ctx, ref.Key, ref.MessageID)
	if err != nil {
		return nil, err
	}
	plain, err := unseal(key, ref.MessageID, sealed)
	if err != nil {
		return nil, fmt.Errorf("content of message %s: %w", ref.MessageID, err)
	}
	c, err := decodeContent(plain)
	if err != nil {
		return nil, fmt.Errorf("content of message %s: %w", ref.MessageID, err)
	}
	s.contents.put(ref.MessageID, &c)
	return &c, nil
}

// DropCache empties the cache of opened contents, which refills as
// messages are read: for a process at rest.
func (s *Store) DropCache() { s.contents.clear() }

// SealKey returns the key a message's content is sealed under, for tests
// and tools that show what a deletion erases.
func (s *Store) SealKey(ctx context.Context, ref ContentRef) ([]byte, error) {
	return s.keys.Get(ctx, ref.Key, ref.MessageID)
}

// OpenRaw streams a large message's raw source from the object store,
// opening it with the message's key as it goes.
//
// The client library looks objects up with direct gets, which a follower
// may answer before it holds an object the leader acknowledged; so in a
// cluster, "not found" for an object a view names is asked again for a
// moment before it is believed.
func (s *Store) OpenRaw(ctx context.Context, ref ContentRef, object string) (io.ReadCloser, error) {
	key, err := s.keys.Get(ctx, ref.Key, ref.MessageID)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		obj, err := s.raw.Get(ctx, object)
		if err == nil {
			return struct {
				io.Reader
				io.Closer
			}{newOpenedReader(key, ref.MessageID, obj), obj}, nil
		}
		if errors.Is(err, jetstream.ErrObjectNotFound) && (!s.replicated || attempt == 10) {
			return nil, ErrErased
		}
		if !errors.Is(err, jetstream.ErrObjectNotFound) {
			return nil, unavailable(err)
		}
		select {
		case <-ctx.Done():
			return nil, unavailable(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// contentCache keeps opened contents, least recently used out first,
// within a byte budget.
type contentCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // of *cachedContent, most recent first
	byID     map[string]*list.Element
}

type cachedContent struct {
	id   string
	c    *mail.Message
	size int
}

func newContentCache(maxBytes int) *contentCache {
	return &contentCache{maxBytes: maxBytes, order: list.New(), byID: map[string]*list.Element{}}
}

func contentSize(c *mail.Message) int {
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

func (cc *contentCache) get(id string) *mail.Message {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.byID[id]
	if !ok {
		return nil
	}
	cc.order.MoveToFront(e)
	return e.Value.(*cachedContent).c
}

func (cc *contentCache) put(id string, c *mail.Message) {
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

// clear empties the cache.
func (cc *contentCache) clear() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.order.Init()
	cc.byID = map[string]*list.Element{}
	cc.bytes = 0
}

func (cc *contentCache) remove(id string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.removeLocked(id)
}

func (cc *contentCache) removeLocked(id string) {
	if e, ok := cc.byID[id]; ok {
		cc.bytes -= e.Value.(*cachedContent).size
		cc.order.Remove(e)
		delete(cc.byID, id)
	}
}
