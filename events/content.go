package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/mailbox"
	"tempmail/sealed"
)

// Content returns what a message says, opened from its sealed record. It
// is of kind NotFound once the message is deleted (its key erased), and
// kept decoded in a bounded cache: it never changes while it exists.
// Callers must not change what it returns.
func (s *Store) Content(ctx context.Context, ref mailbox.ContentRef) (*mailbox.Content, error) {
	// Readers who ask at once share one opening (sealed.Cache.Open): one
	// reader going away does not fail the others.
	return s.contents.Open(ref.MessageID, func() (*mailbox.Content, error) {
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return s.open(octx, ref)
	})
}

// open reads and opens a message's content.
func (s *Store) open(ctx context.Context, ref mailbox.ContentRef) (*mailbox.Content, error) {
	m, err := s.stream.GetMsg(ctx, ref.Seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, sealed.ErrErased
	}
	if err != nil {
		return nil, unavailable(err)
	}
	head, content, _ := bytes.Cut(m.Data, []byte("\n"))
	if p, _, err := Decode(head); err != nil {
		return nil, fmt.Errorf("content of message %s: %w", ref.MessageID, err)
	} else if mr, ok := p.(*MailReceived); !ok || mr.MessageID != ref.MessageID {
		return nil, fmt.Errorf("event %d is not message %s's MailReceived", ref.Seq, ref.MessageID)
	}
	key, err := s.keys.Get(ctx, ref.Key, ref.MessageID)
	if err != nil {
		return nil, err
	}
	c, err := sealed.Open(key, ref.MessageID, content)
	if err != nil {
		return nil, fmt.Errorf("content of message %s: %w", ref.MessageID, err)
	}
	return &c, nil
}

// DropCache empties the cache of opened contents, which refills as
// messages are read: for a process at rest.
func (s *Store) DropCache() { s.contents.Clear() }

// SealKey returns the key a message's content is sealed under, for tests
// and tools that show what a deletion erases.
func (s *Store) SealKey(ctx context.Context, ref mailbox.ContentRef) ([]byte, error) {
	return s.keys.Get(ctx, ref.Key, ref.MessageID)
}

// OpenRaw streams a large message's raw source from the object store,
// opening it with the message's key as it goes.
//
// The client library looks objects up with direct gets, which a follower
// may answer before it holds an object the leader acknowledged; so in a
// cluster, "not found" for an object a view names is asked again for a
// moment before it is believed.
func (s *Store) OpenRaw(ctx context.Context, ref mailbox.ContentRef, object string) (io.ReadCloser, error) {
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
			}{sealed.OpenReader(key, ref.MessageID, obj), obj}, nil
		}
		if errors.Is(err, jetstream.ErrObjectNotFound) && (!s.replicated || attempt == 10) {
			return nil, sealed.ErrErased
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
