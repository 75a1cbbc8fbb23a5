package engine

import (
	"context"
	"errors"
	"slices"

	"tempmail/events"
	"tempmail/projections/view"
)

// Views is what the engine needs of the views it keeps (package
// projections has tempmail's): how they are stored (view.Schema), what an
// event does to them (Applier), and in what order a batch's writes of
// them may be seen (Rank).
type Views interface {
	view.Schema
	// Applier returns the views' part of a new batch. live: a worker's
	// batch of the events it is handed, whose outbound effects are
	// dispatched and which may ask the log what a missing entry means;
	// otherwise a rebuild's, or an event set aside tried again: neither.
	Applier(live bool) Applier
	// Rank orders a batch's writes of the views' entries: every write of
	// a rank is stored before the next rank's are sent, so an entry that
	// says an event is applied, or that a reader reaches first, must rank
	// after the entries it leads to. What the log is to forget is written
	// before every rank, the checkpoint after (Engine.write).
	Rank(key string, gone bool) int
}

// Applier applies events to one batch.
type Applier interface {
	// Apply applies one event to t's batch, in memory: it loads the
	// entries the event concerns (Load) and changes them (Tx.Save,
	// Tx.Remove), and adds what the log may forget to Batch.Forget. An
	// error wrapping ErrNoView says no view handles the event.
	Apply(t *Tx, p events.Payload) error
	// Dispatch hands what the events applied call for beyond the views
	// (outbound webhooks) to where it is done, durably: it is called
	// before the batch's writes, and again with the same effects when the
	// batch is applied again.
	Dispatch(ctx context.Context) error
}

// Counted is an entry that counts in its partition's Counts while it is
// live: an inbox, one with its messages.
type Counted interface {
	view.Record
	// Counts is what the entry counts for while live, and the address
	// whose partition counts it.
	Counts() (view.Counts, string)
}

// ErrNoView: an event of a type no view handles, which this build decodes
// (an event an earlier build no longer writes, say). A rebuild sets it
// aside, as the workers do.
var ErrNoView = errors.New("projections: no view handles the event")

// Pending is what the log is still to forget of what a partition's views
// let go (events.Store.Forget): written before the views that let it go,
// done once the partition's checkpoint reaches UpTo (worker.go).
type Pending struct {
	view.Meta
	Forget events.Forget `json:"forget"`
	UpTo   uint64        `json:"up_to"`
}

// Clone copies the pending forget.
func (p *Pending) Clone() view.Record {
	c := *p
	c.Forget = events.Forget{Messages: slices.Clone(p.Forget.Messages), Seqs: slices.Clone(p.Forget.Seqs),
		Inboxes: slices.Clone(p.Forget.Inboxes), Claims: slices.Clone(p.Forget.Claims),
		Tenants: slices.Clone(p.Forget.Tenants), Domains: slices.Clone(p.Forget.Domains)}
	return &c
}

// PendingKey is the key of a partition's pending forget.
func PendingKey(part string) string { return "f." + part }

// schema is the views' schema with the engine's own entries: a worker
// keeps its partition's pending forget between batches, as it keeps the
// views' hot entries.
type schema struct{ Views }

func (s schema) Keep(rec view.Record) bool {
	if _, ok := rec.(*Pending); ok {
		return true
	}
	return s.Views.Keep(rec)
}
