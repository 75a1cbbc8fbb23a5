package projections

import (
	"context"
	"slices"

	"tempmail"
)

// What an inbox's event stream tells (API.md "Push: Server-Sent Events"):
// every change to its messages, each named by the stream sequence of the
// event that made it. Events of one inbox are applied in order, so a
// client that has seen everything up to sequence n has missed exactly the
// changes after n, and Changes finds them in the views: new messages and
// reads in the list pages (ContentSeq, ReadSeq), deletions in the inbox's
// removals.
//
// The pages and removals are separate entries, read one after the other
// while events are being applied, so together they may show a later event
// and miss an earlier one; a stream that moved on to the later one would
// never tell the earlier. Every event that changes an inbox's messages
// writes the inbox entry last, so the inbox's Seq, read first, is a point
// up to which every later read is complete: Changes tells nothing beyond
// it, and the rest follows with the next change.

// ChangeKind names what happened to a message.
type ChangeKind string

const (
	ChangeMessage ChangeKind = "message"
	ChangeRead    ChangeKind = "read"
	ChangeDeleted ChangeKind = "deleted"
	// ChangeReset says that what the client holds may be stale beyond
	// repair by changes: it resumed from before the oldest deletion the
	// views still keep, and must load the list afresh.
	ChangeReset ChangeKind = "reset"
)

// Change is one thing that happened to one message.
type Change struct {
	Seq     uint64
	Kind    ChangeKind
	ID      string
	Summary *Summary // for ChangeMessage: the message as lists show it, joined
}

// Changes returns what happened to in's messages after sequence after,
// oldest first: a bounded number of reads (the inbox, its list pages, its
// removals), and a join for each new message.
func (r *Reader) Changes(ctx context.Context, in *Inbox, after uint64) ([]Change, error) {
	// Entries in the cache reflect every write up to what the watcher has
	// applied; if the inbox entry read now is newer than that, the rest is
	// read from the bucket too.
	fresh := r.cache == nil
	var seen uint64
	if !fresh {
		seen = r.cache.position()
	}
	var cur Inbox
	rev, err := r.getLatest(ctx, inboxKey(in.ID), &cur, "inbox")
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, nil // it ended; the stream learns so from the inbox
	}
	if err != nil {
		return nil, err
	}
	upTo := cur.Seq
	fresh = fresh || rev > seen
	var read getter = r.get
	if fresh {
		read = func(ctx context.Context, key string, rec record, what string) error {
			_, err := r.getLatest(ctx, key, rec, what)
			return err
		}
	}
	var rm Removals
	err = read(ctx, removalsKey(cur.ID), &rm, "removals")
	if err != nil && tempmail.KindOf(err) != tempmail.NotFound {
		return nil, err
	}
	if after > 0 && after < rm.Dropped {
		// Deletions it missed are no longer known: it starts again from
		// the list as it is now. (From 0 it holds nothing that could be
		// stale: it is sent every message the inbox holds.)
		return []Change{{Seq: upTo, Kind: ChangeReset}}, nil
	}
	items, err := pageItems(ctx, read, &cur, 0, len(cur.Pages))
	if err != nil {
		return nil, err
	}
	var out []Change
	for i := range items {
		s := &items[i]
		if s.ContentSeq > after && s.ContentSeq <= upTo {
			err := r.join(ctx, s)
			if tempmail.KindOf(err) == tempmail.NotFound {
				continue // being deleted; its deletion follows
			}
			if err != nil {
				return nil, err
			}
			out = append(out, Change{Seq: s.ContentSeq, Kind: ChangeMessage, ID: s.ID, Summary: s})
		}
		if s.IsRead && s.ReadSeq > after && s.ReadSeq <= upTo {
			out = append(out, Change{Seq: s.ReadSeq, Kind: ChangeRead, ID: s.ID})
		}
	}
	for _, x := range rm.Items {
		// A message that came and went while the client was away is
		// neither told of nor its deletion.
		if x.Seq > after && x.Seq <= upTo && x.ContentSeq <= after {
			out = append(out, Change{Seq: x.Seq, Kind: ChangeDeleted, ID: x.ID})
		}
	}
	slices.SortFunc(out, func(a, b Change) int {
		if a.Seq < b.Seq {
			return -1
		}
		if a.Seq > b.Seq {
			return 1
		}
		return 0
	})
	return out, nil
}

// Cursor is the sequence of the latest change to in's messages: a stream
// that starts now tells what happens after it.
func (r *Reader) Cursor(in *Inbox) uint64 {
	return in.Seq // the last event that changed its messages (Changes)
}
