package projections

import (
	"context"
	"strings"

	"tempmail"
	"tempmail/events"
)

// contents opens what messages say, which views do not hold
// (events.Store.Content).
type contents interface {
	Content(ctx context.Context, ref events.ContentRef) (*events.Content, error)
}

// Filter selects messages by what they say: each set field must occur,
// ignoring case, in the sender (address or name), a recipient (To, Cc or
// the inbox's own address) or the subject. The zero Filter selects all.
type Filter struct {
	From, To, Subject string
}

// Empty reports whether f selects every message.
func (f Filter) Empty() bool { return f.From == "" && f.To == "" && f.Subject == "" }

// Match reports whether a joined summary of a message to address passes f.
func (f Filter) Match(s *Summary, address string) bool {
	return (f.From == "" || containsFold(s.From, f.From) || containsFold(s.FromName, f.From)) &&
		(f.Subject == "" || containsFold(s.Subject, f.Subject)) &&
		(f.To == "" || containsFold(address, f.To) || anyContainsFold(s.To, f.To) || anyContainsFold(s.Cc, f.To))
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func anyContainsFold(list []string, sub string) bool {
	for _, s := range list {
		if containsFold(s, sub) {
			return true
		}
	}
	return false
}

// Query asks for a page of an inbox's messages, newest first.
type Query struct {
	Offset, Limit int // Limit 0: all from Offset on
	Filter        Filter
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
func (r *Reader) List(ctx context.Context, in *Inbox, q Query) (Listing, error) {
	if q.Filter.Empty() {
		return r.listPage(ctx, in, q)
	}
	all, err := r.summaries(ctx, in, 0, len(in.Pages))
	if err != nil {
		return Listing{}, err
	}
	var matched []Summary
	for i := range all {
		if err := r.join(ctx, &all[i]); err != nil {
			if tempmail.KindOf(err) == tempmail.NotFound {
				continue
			}
			return Listing{}, err
		}
		if q.Filter.Match(&all[i], in.Address) {
			matched = append(matched, all[i])
		}
	}
	return Listing{Items: window(matched, q.Offset, q.Limit), Total: len(matched)}, nil
}

func (r *Reader) listPage(ctx context.Context, in *Inbox, q Query) (Listing, error) {
	// Skip the pages the offset passes over whole.
	first, skip := 0, q.Offset
	for first < len(in.Pages) && first < len(in.PageSizes) && skip >= in.PageSizes[first] {
		skip -= in.PageSizes[first]
		first++
	}
	last := len(in.Pages)
	if q.Limit > 0 {
		need, n := skip+q.Limit, 0
		for last = first; last < len(in.Pages) && n < need; last++ {
			if last < len(in.PageSizes) {
				n += in.PageSizes[last]
			}
		}
	}
	items, err := r.summaries(ctx, in, first, last)
	if err != nil {
		return Listing{}, err
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

// summaries reads the list pages in.Pages[first:last], unjoined.
func (r *Reader) summaries(ctx context.Context, in *Inbox, first, last int) ([]Summary, error) {
	return pageItems(ctx, r.get, in, first, last)
}

// getter reads a view entry (Reader.get, or a read past the cache).
type getter func(ctx context.Context, key string, rec record, what string) error

// pageItems reads in's list pages first to last with get.
func pageItems(ctx context.Context, get getter, in *Inbox, first, last int) ([]Summary, error) {
	var out []Summary
	for _, n := range in.Pages[first:last] {
		var pg Page
		err := get(ctx, pageKey(in.ID, n), &pg, "list page")
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue // emptied by a change that is being applied right now
		}
		if err != nil {
			return nil, err
		}
		out = append(out, pg.Items...)
	}
	return out, nil
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
	l, err := r.List(ctx, in, Query{})
	return l.Items, err
}
