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

// ChangeKind names what happened to a message.
type ChangeKind string

const (
	ChangeMessage ChangeKind = "message"
	ChangeRead    ChangeKind = "read"
	ChangeDeleted ChangeKind = "deleted"
)

// Change is one thing that happened to one message.
type Change struct {
	Seq     uint64
	Kind    ChangeKind
	ID      string
	Summary *Summary // for ChangeMessage: the message as lists show it, joined
}

// Changes returns what happened to in's messages after sequence after,
// oldest first: a bounded number of reads (the inbox's list pages, its
// removals), and a join for each new message.
func (r *Reader) Changes(ctx context.Context, in *Inbox, after uint64) ([]Change, error) {
	items, err := r.summaries(ctx, in, 0, len(in.Pages))
	if err != nil {
		return nil, err
	}
	var out []Change
	for i := range items {
		s := &items[i]
		if s.ContentSeq > after {
			err := r.join(ctx, s)
			if tempmail.KindOf(err) == tempmail.NotFound {
				continue // being deleted; its deletion follows
			}
			if err != nil {
				return nil, err
			}
			out = append(out, Change{Seq: s.ContentSeq, Kind: ChangeMessage, ID: s.ID, Summary: s})
		}
		if s.IsRead && s.ReadSeq > after {
			out = append(out, Change{Seq: s.ReadSeq, Kind: ChangeRead, ID: s.ID})
		}
	}
	var rm Removals
	err = r.get(ctx, removalsKey(in.ID), &rm, "removals")
	if err != nil && tempmail.KindOf(err) != tempmail.NotFound {
		return nil, err
	}
	for _, x := range rm.Items {
		// A message that came and went while the client was away is
		// neither told of nor its deletion.
		if x.Seq > after && x.ContentSeq <= after {
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
func (r *Reader) Cursor(ctx context.Context, in *Inbox) (uint64, error) {
	cursor := in.Seq // its last message received or deleted
	items, err := r.summaries(ctx, in, 0, len(in.Pages))
	if err != nil {
		return 0, err
	}
	for _, s := range items {
		cursor = max(cursor, s.ReadSeq)
	}
	return cursor, nil
}
