package projections

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/events"
	"tempmail/mail"
	"tempmail/mailbox"
	"tempmail/projections/view"
)

// Reader answers reads from the views. Each method is a constant number of
// KV gets, through the process's read cache (view.Reader). Entries that
// are absent or tombstoned are reported as errors of kind NotFound; expiry
// by time is the caller's to judge (Inbox.Live).
type Reader struct {
	bucket  *view.Reader
	kv      jetstream.KeyValue // the bucket, for what no get reads (Tenants)
	parts   []string
	content contents // what messages say, joined in as they are read
}

// DropCache empties the read cache, which refills as reads come: for a
// process at rest, which need not hold what its busy minutes read.
func (r *Reader) DropCache() { r.bucket.DropCache() }

// Hub is the process's change hub, for long-polling.
func (r *Reader) Hub() *Hub { return r.bucket.Hub() }

// WaitApplied waits until the views reflect the event ack describes, so that
// a command's effect is visible to the very next read.
func (r *Reader) WaitApplied(ctx context.Context, ack events.Ack) error {
	return r.bucket.WaitApplied(ctx, ack)
}

// get reads key into rec (view.Reader.Get): what it reads is shared with
// the cache, and read-only.
func (r *Reader) get(ctx context.Context, key string, rec view.Record, what string) error {
	return r.bucket.Get(ctx, key, rec, what)
}

// getLatest reads key into rec past the cache (view.Reader.GetLatest).
func (r *Reader) getLatest(ctx context.Context, key string, rec view.Record, what string) (uint64, error) {
	return r.bucket.GetLatest(ctx, key, rec, what)
}

// getAt reads key into rec, past the cache when latest: for the reads
// that a claim, or a change that must see what another process made,
// makes past it.
func (r *Reader) getAt(ctx context.Context, key string, rec view.Record, what string, latest bool) error {
	if latest {
		_, err := r.getLatest(ctx, key, rec, what)
		return err
	}
	return r.get(ctx, key, rec, what)
}

// Inbox returns an inbox by id.
func (r *Reader) Inbox(ctx context.Context, id string) (*Inbox, error) {
	var in Inbox
	if err := r.get(ctx, inboxKey(id), &in, "inbox"); err != nil {
		return nil, err
	}
	return &in, nil
}

// InboxByToken returns the inbox a family C token names.
func (r *Reader) InboxByToken(ctx context.Context, token string) (*Inbox, error) {
	var t TokenRef
	if err := r.get(ctx, tokenKey(token), &t, "inbox"); err != nil {
		return nil, err
	}
	return r.Inbox(ctx, t.InboxID)
}

// InboxByAddress returns the inbox that holds a (normalised) address now.
func (r *Reader) InboxByAddress(ctx context.Context, addr string) (*Inbox, error) {
	a, err := r.Address(ctx, addr, false)
	if err != nil {
		return nil, err
	}
	if !a.Live {
		return nil, tempmail.Errorf(tempmail.NotFound, "inbox not found")
	}
	return r.Inbox(ctx, a.InboxID)
}

// Address returns what the views know of an address; a zero Address (not
// live, lifecycle sequence 0) when it never had an inbox. latest reads
// past this process's cache, for a claim the cached entry says it lost.
func (r *Reader) Address(ctx context.Context, addr string, latest bool) (*Address, error) {
	var a Address
	err := r.getAt(ctx, addressKey(addr), &a, "address", latest)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return &Address{}, nil
	} else if err != nil {
		return nil, err
	}
	return &a, nil
}

// Message returns a message by its id alone, with what it says joined
// in, and the inbox that holds it: its id names its inbox
// (events.InboxTag), whose entry leads to it. It is of kind NotFound when
// no inbox holds it, also while its deletion is being applied (its key
// already erased).
func (r *Reader) Message(ctx context.Context, id string) (*mailbox.Message, *Inbox, error) {
	var inboxes []string
	var tag TagRef
	err := r.get(ctx, tagKey(events.InboxTag(id)), &tag, "message")
	switch {
	case err == nil:
		inboxes = tag.Inboxes
	case tempmail.KindOf(err) != tempmail.NotFound:
		return nil, nil, err
	}
	var ref MessageRef
	switch err := r.get(ctx, messageRefKey(id), &ref, "message"); {
	case err == nil:
		inboxes = append(inboxes, ref.InboxID) // received before ids named their inbox
	case tempmail.KindOf(err) != tempmail.NotFound:
		return nil, nil, err
	}
	for _, inboxID := range inboxes {
		in, err := r.Inbox(ctx, inboxID)
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		m, err := r.MessageIn(ctx, in, id)
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return m, in, nil
	}
	return nil, nil, tempmail.Errorf(tempmail.NotFound, "message not found")
}

// MessageIn returns a message of in by its id, with what it says joined
// in; of kind NotFound when in does not hold it.
func (r *Reader) MessageIn(ctx context.Context, in *Inbox, id string) (*mailbox.Message, error) {
	s, err := r.summary(ctx, in, id)
	if err != nil {
		return nil, err
	}
	c, err := r.content.Content(ctx, s.ContentRef())
	if err != nil {
		return nil, err
	}
	m := &mailbox.Message{ID: s.ID, InboxID: in.ID, Address: in.Address, IsRead: s.IsRead, ReadSeq: s.ReadSeq,
		ReceivedAt: s.ReceivedAt, Size: s.Size, ContentSeq: s.ContentSeq, Key: s.Key, RawObject: s.RawObject,
		Content: *c}
	m.Links = storedLinks(c)
	return m, nil
}

// storedLinks are a message's links, each URL with its invisible
// characters percent-encoded (mail.EncodeInvisible: ingest has done so
// since issue 29; links kept before are encoded as they are read).
// Content stored before links were kept has none (nil, not empty): they
// are found in its bodies now, which costs what ingest would have spent,
// once per read. c is shared with the cache: never changed.
func storedLinks(c *mailbox.Content) []mailbox.Link {
	if c.Links == nil {
		return mail.Extract(c.Text, c.HTML)
	}
	out := c.Links
	for i, l := range c.Links {
		if u := mail.EncodeInvisible(l.URL); u != l.URL {
			if &out[0] == &c.Links[0] {
				out = append([]mailbox.Link(nil), c.Links...)
			}
			out[i].URL = u
		}
	}
	return out
}

// summary finds a message's summary in in: its open page, or the closed
// page its id points to.
func (r *Reader) summary(ctx context.Context, in *Inbox, id string) (*Summary, error) {
	for i := range in.Head {
		if in.Head[i].ID == id {
			return &in.Head[i], nil
		}
	}
	for _, pos := range pagesFor(in, id) {
		var pg Page
		err := r.get(ctx, pageKey(in.ID, in.Pages[pos].N), &pg, "list page")
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		for i := range pg.Items {
			if pg.Items[i].ID == id && pg.Items[i].DeletedSeq == 0 {
				return &pg.Items[i], nil
			}
		}
	}
	return nil, tempmail.Errorf(tempmail.NotFound, "message not found")
}
