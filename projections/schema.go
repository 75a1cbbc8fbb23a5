package projections

import (
	"context"
	"strings"

	"tempmail/projections/engine"
	"tempmail/projections/entry"
	"tempmail/projections/view"
)

// views are tempmail's views as the engine keeps them (engine.Views): how
// an event changes them (apply*.go), in what order a batch's writes may
// be seen (Rank), and how their entries are stored (package entry).
type views struct {
	rules  Rules
	outbox Outbox // nil: no webhook is dispatched
	// reader reads the subscriptions to every inbox for a live batch's
	// deliveries; set once the engine that reads the views is open.
	reader *Reader
	// inboxLive asks the log whether an inbox is live
	// (events.Store.InboxLive).
	inboxLive func(ctx context.Context, addr, inboxID string) (bool, error)
}

// Applier returns the views' part of a new batch: a live one dispatches
// webhooks (when there is an outbox) and asks the log about an inbox whose
// entry is missing.
func (v *views) Applier(live bool) engine.Applier {
	a := &applier{rules: v.rules}
	if live {
		a.inboxLive = v.inboxLive
		if v.outbox != nil {
			a.globals, a.outbox = v.reader.globalWebhooks, v.outbox
		}
	}
	return a
}

// Rank orders the writes of a batch: the entries a reader reaches first
// (an address, then an inbox) are written after what they lead to (pages,
// subscriptions, tokens, tags), so that a reader that finds them finds
// the rest. (What the log is to forget goes before them all, the
// checkpoint, which says the batch is applied, after them all: the
// engine's.)
//
// A rank's writes are stored before the next rank's are sent, so the
// ranks are also what entry may depend on what: an entry that says an
// event is applied (an inbox, for the mail in its pages; a tenant, for
// its list and keys) ranks after every entry the event changes. A key's
// entries are what authentication reaches first, so a key is written
// after its tenant, and taken away (gone) before it.
func (v *views) Rank(key string, gone bool) int {
	key_ := strings.HasPrefix(key, "kh.") || strings.HasPrefix(key, "ki.")
	switch {
	case key_ && gone:
		return 0
	case strings.HasPrefix(key, "i."), strings.HasPrefix(key, "tenant."):
		return 1
	case strings.HasPrefix(key, "a."), key_:
		return 2 // an address, a key: what a reader reaches first
	case key == webhooksKey || key == faultsKey || key == publicDomainsKey || strings.HasPrefix(key, "dn.") || strings.HasPrefix(key, "dt."):
		return 3 // the lists and indexes that lead to entries
	}
	return 0
}

// Encode is an entry's stored form (entry.Encode).
func (v *views) Encode(rec view.Record) ([]byte, error) { return entry.Encode(rec) }

// Decode reads an entry's stored form (entry.Decode).
func (v *views) Decode(data []byte, rec view.Record) error { return entry.Decode(data, rec) }

// Size estimates what a record takes in memory (entry.Size).
func (v *views) Size(rec view.Record) int { return entry.Size(rec) }

// Keep says which entries a worker keeps between batches (entry.Hot).
func (v *views) Keep(rec view.Record) bool { return entry.Hot(rec) }

// Printable names a key in an error, which may reach a log: a token key
// holds an inbox's token, which no log may show.
func (v *views) Printable(key string) string {
	if strings.HasPrefix(key, "t.") {
		return "t.<token>"
	}
	return key
}
