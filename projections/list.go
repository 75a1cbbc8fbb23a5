package projections

import (
	"context"

	"tempmail"
	"tempmail/events"
	"tempmail/mailbox"
)

// contents opens what messages say, which views do not hold
// (events.Store.Content).
type contents interface {
	Content(ctx context.Context, ref mailbox.ContentRef) (*mailbox.Content, error)
}

// Listing is a page of messages and how many the whole list holds.
type Listing struct {
	Items []Summary
	Total int // every message that passes the filter, not only this page
}

// List returns a page of an inbox's messages, newest first, with what
// lists show of each joined in. Without a filter it reads only the list
// pages the page covers (their sizes are in the inbox entry) and joins only
// what it returns: a bounded number of reads however large the inbox. A
// filter reads the whole list, which the per-inbox cap bounds. Messages
// deleted while the list is read are left out.
func (r *Reader) List(ctx context.Context, in *Inbox, q mailbox.Query) (Listing, error) {
	if q.Filter.Empty() {
		return r.listPage(ctx, in, q)
	}
	var matched []Summary
	err := r.eachNewest(ctx, in, func(s *Summary) (bool, error) {
		switch err := r.join(ctx, s); {
		case tempmail.KindOf(err) == tempmail.NotFound:
			return true, nil
		case err != nil:
			return false, err
		}
		if q.Filter.Match(&s.Head, in.Address) {
			matched = append(matched, *s)
		}
		return true, nil
	})
	if err != nil {
		return Listing{}, err
	}
	return Listing{Items: window(matched, q.Offset, q.Limit), Total: len(matched)}, nil
}

func (r *Reader) listPage(ctx context.Context, in *Inbox, q mailbox.Query) (Listing, error) {
	// The open page first, then the closed pages, skipping those the
	// offset passes over whole.
	skip := q.Offset
	var items []Summary
	want := func() bool { return q.Limit == 0 || len(items) < skip+q.Limit }
	if skip >= len(in.Head) {
		skip -= len(in.Head)
	} else {
		items = append(items, in.Head...)
	}
	for _, ref := range in.Pages {
		if !want() {
			break
		}
		if len(items) == 0 && skip >= ref.Size {
			skip -= ref.Size
			continue
		}
		var pg Page
		err := r.get(ctx, pageKey(in.ID, ref.N), &pg, "list page")
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue // emptied by a change being applied right now
		}
		if err != nil {
			return Listing{}, err
		}
		for _, s := range pg.Items {
			if s.DeletedSeq == 0 {
				items = append(items, s)
			}
		}
	}
	items = window(items, skip, q.Limit)
	out := items[:0]
	for i := range items {
		err := r.join(ctx, &items[i])
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue
		}
		if err != nil {
			return Listing{}, err
		}
		out = append(out, items[i])
	}
	return Listing{Items: out, Total: in.Count}, nil
}

// window is list[offset:offset+limit], within bounds; limit 0: to the end.
func window(list []Summary, offset, limit int) []Summary {
	if offset >= len(list) {
		return nil
	}
	list = list[offset:]
	if limit > 0 && limit < len(list) {
		list = list[:limit]
	}
	return list
}

// join fills in what a summary shows of what its message says. It is of
// kind NotFound when the message was deleted (its key erased).
func (r *Reader) join(ctx context.Context, s *Summary) error {
	c, err := r.content.Content(ctx, s.ContentRef())
	if err != nil {
		return err
	}
	s.From, s.FromName, s.Subject, s.Preview = c.From, c.FromName, c.Subject, c.Preview
	s.To, s.Cc, s.Attachments = c.To, c.Cc, c.Attachments
	return nil
}

// Messages returns every message of an inbox, newest first, joined: one
// get per list page, whose number the per-inbox cap bounds.
func (r *Reader) Messages(ctx context.Context, in *Inbox) ([]Summary, error) {
	l, err := r.List(ctx, in, mailbox.Query{})
	return l.Items, err
}

// Latest returns the newest message of in, joined, or nil when it holds
// none.
func (r *Reader) Latest(ctx context.Context, in *Inbox) (*Summary, error) {
	var latest *Summary
	err := r.eachNewest(ctx, in, func(s *Summary) (bool, error) {
		switch err := r.join(ctx, s); {
		case tempmail.KindOf(err) == tempmail.NotFound:
			return true, nil // deleted a moment ago
		case err != nil:
			return false, err
		}
		latest = s
		return false, nil
	})
	return latest, err
}

// Retry returns the id of the message of in that print recognises (a
// sender's retry of it), or "": among the inbox's newest, its open page and
// newest closed one, where the retries an MTA makes within its days of
// trying land (the views drop the same retry when it races the first copy
// past ingest's look, see tx.printed).
func (r *Reader) Retry(ctx context.Context, in *Inbox, print events.Print) (string, error) {
	for i := range in.Head {
		if in.Head[i].Print.Matches(print) {
			return in.Head[i].ID, nil
		}
	}
	if len(in.Pages) == 0 {
		return "", nil
	}
	var pg Page
	err := r.get(ctx, pageKey(in.ID, in.Pages[0].N), &pg, "list page")
	if tempmail.KindOf(err) == tempmail.NotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for i := range pg.Items {
		if s := &pg.Items[i]; s.DeletedSeq == 0 && s.Print.Matches(print) {
			return s.ID, nil
		}
	}
	return "", nil
}
