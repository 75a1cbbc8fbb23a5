package projections

import (
	"context"
	"slices"

	"tempmail"
)

// What an inbox's event stream tells (docs/waiting.md "Event streams"):
// every change to its messages, each named by the stream sequence of the
// event that made it. Events of one inbox are applied in order, so a
// client that has seen everything up to sequence n has missed exactly the
// changes after n, and Changes finds them in the inbox's entry: new
// messages at the top of its list (their ContentSeq), reads and deletions
// among its Marks. That costs what changed since n, not what the inbox
// holds: the open page and the marks are in the entry itself, and only
// more than a page of new messages reads a closed page.
//
// One entry read at one moment is consistent with itself, and the closed
// pages it names were written before it: so nothing beyond the entry's
// sequence is told, and nothing before it is missed; the rest follows
// with the next change.

// Change is one thing that happened to one message.
type Change struct {
	Seq     uint64
	Kind    ChangeKind
	ID      string
	Summary *Summary // for ChangeMessage: the message as lists show it, joined
	Attempt *Attempt // for ChangeAttempt
}

// Changes returns what happened to in's messages after sequence after,
// oldest first. in is the inbox as read now. From 0 (a client that holds
// nothing) it is every message the inbox holds.
func (r *Reader) Changes(ctx context.Context, in *Inbox, after uint64) ([]Change, error) {
	if after > in.Seq || (after > 0 && after < in.Forgotten) {
		return []Change{{Seq: in.Seq, Kind: ChangeReset}}, nil
	}
	var out []Change
	err := r.eachNewest(ctx, in, func(s *Summary) (bool, error) {
		if s.ContentSeq <= after {
			return false, nil
		}
		switch err := r.join(ctx, s); {
		case tempmail.KindOf(err) == tempmail.NotFound:
			return true, nil // being deleted; its deletion follows
		case err != nil:
			return false, err
		}
		out = append(out, Change{Seq: s.ContentSeq, Kind: ChangeMessage, ID: s.ID, Summary: s})
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if after > 0 {
		for _, m := range in.Marks {
			// A message that came and went while the client was away is
			// neither told of nor its deletion.
			if m.Seq > after && (m.Kind != ChangeDeleted || m.ContentSeq <= after) {
				out = append(out, Change{Seq: m.Seq, Kind: m.Kind, ID: m.ID})
			}
		}
	}
	// The attempts the inbox's attempt log shows (those a rule acted on,
	// and messages stored), as they come: an attempt log keeps only the
	// newest, so a client away for longer misses the older.
	for i := range in.Faults.Attempts {
		if a := &in.Faults.Attempts[i]; a.Seq > after && (a.RuleID == "" || a.Acted) {
			out = append(out, Change{Seq: a.Seq, Kind: ChangeAttempt, ID: a.RuleID, Attempt: a})
		}
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	return out, nil
}

// eachNewest calls fn with in's messages, newest first (its open page,
// then its closed pages), until fn says stop. Deleted summaries are left
// out; fn may change what it is given.
func (r *Reader) eachNewest(ctx context.Context, in *Inbox, fn func(*Summary) (bool, error)) error {
	for i := range in.Head {
		s := in.Head[i]
		if more, err := fn(&s); !more || err != nil {
			return err
		}
	}
	for _, ref := range in.Pages {
		var pg Page
		err := r.get(ctx, pageKey(in.ID, ref.N), &pg, "list page")
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue // emptied by a change being applied right now
		}
		if err != nil {
			return err
		}
		for i := range pg.Items {
			if pg.Items[i].DeletedSeq != 0 {
				continue
			}
			s := pg.Items[i]
			if more, err := fn(&s); !more || err != nil {
				return err
			}
		}
	}
	return nil
}

// Cursor is the sequence of the latest change to in: a stream that
// starts now tells what happens after it.
func (r *Reader) Cursor(in *Inbox) uint64 { return in.Seq }
