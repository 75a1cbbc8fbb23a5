package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/events"
	"tempmail/projections/view"
	"tempmail/retry"
)

// Events set aside. An event that cannot be applied, the same way every
// time, must not stop its partition: every inbox, tenant and domain of the
// partition would wait behind it. So it is set aside: recorded in the
// partition's entry
//
//	x.<partition>   the events set aside, how many, and why
//
// counted (tempmail_projection_events_set_aside), named in /readyz's
// warnings on every node, logged once, and the partition goes on past it.
// `tempmail rebuild` applies the whole log again in order, the set-aside
// events with it. A worker that takes the partition after a restart tries
// each again before anything else, and drops it from the record once it
// applies: a build that reads a newer event's schema, or no longer makes
// the entry it made too large. Only where nothing it changes has changed
// since: an older event applied after newer ones would undo them, so an
// event whose entries moved on waits for the rebuild.

// SetAside is a partition's record of the events it set aside.
type SetAside struct {
	view.Meta
	Count  int64        `json:"count"`            // set aside and not applied since, in all
	Events []AsideEvent `json:"events,omitempty"` // the newest asideKept, oldest first
}

// AsideEvent is one event set aside.
type AsideEvent struct {
	Seq   uint64    `json:"seq"`
	Type  string    `json:"type"`
	Error string    `json:"error"`
	At    time.Time `json:"at"` // when it was set aside
}

// Clone copies the record.
func (a *SetAside) Clone() view.Record {
	c := *a
	c.Events = append([]AsideEvent(nil), a.Events...)
	return &c
}

const (
	// asideKept bounds the events a partition's record names, so that it
	// stays small whatever happens: the count goes on.
	asideKept = 32
	// asideErrorBytes bounds the reason kept with each.
	asideErrorBytes = 300
)

// AsideKey is the key of a partition's record of the events it set aside.
func AsideKey(part string) string { return "x." + part }

// errTooLarge: an event that makes a view entry larger than NATS takes.
var errTooLarge = errors.New("it makes a view entry larger than a NATS message may be")

// permanent reports a failure that trying again cannot mend: an entry
// larger than NATS takes, a view entry or event this build cannot read, a
// type no view handles. Everything NATS answers of kind Unavailable (no
// leader, a timeout, the connection lost) passes.
func permanent(err error) bool {
	switch {
	case err == nil || errors.Is(err, view.ErrConflict) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded):
		return false
	case errors.Is(err, nats.ErrMaxPayload):
		return true
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamMessageExceedsMaximum {
		return true
	}
	return tempmail.KindOf(err) != tempmail.Unavailable
}

// setAside records e as set aside and moves the partition's checkpoint
// past it, trying again until that is written or the worker stops.
func (v *Engine) setAside(ctx context.Context, p *partition, e decoded, why error) outcome {
	kind := "undecodable"
	if e.p != nil {
		kind = string(e.p.EventType())
	}
	for attempt := 0; ; attempt++ {
		if o := v.ready(ctx, p, e.seq, nil); o != done {
			return o
		}
		actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := v.store.Durable(actx, e.seq)
		if err == nil {
			err = v.load(actx, p)
		}
		if err == nil && e.seq <= p.seq {
			cancel()
			return done // set aside, or applied, by another worker
		}
		if err == nil {
			var rec SetAside
			if _, _, err = p.st.Get(actx, AsideKey(p.name), &rec); err == nil {
				rec.add(AsideEvent{Seq: e.seq, Type: kind, Error: bounded(why.Error(), asideErrorBytes), At: time.Now().UTC()})
				b := NewBatch(actx, p.st, v.views, false, func(string) string { return p.name })
				b.last, b.aside = e.seq, &rec
				err = v.write(actx, p, b)
			}
		}
		cancel()
		if err == nil {
			break
		}
		p.loaded = false
		p.st.ForgetAll()
		p.log.Warn("views: recording an event set aside failed; retrying", "seq", e.seq, "err", err)
		if !retry.Apply.Sleep(ctx, attempt) {
			return stopping
		}
	}
	v.store.CountError("apply")
	p.log.Error("views: an event cannot be applied the same way each time; set aside, the partition goes on (tempmail rebuild applies it again)",
		"seq", e.seq, "type", kind, "err", why)
	return done
}

// add records one more event set aside.
func (a *SetAside) add(e AsideEvent) {
	a.Count++
	a.Events = append(a.Events, e)
	if len(a.Events) > asideKept {
		a.Events = a.Events[len(a.Events)-asideKept:]
	}
}

// drop removes an event from the record: it applied after all, or the log
// forgot it.
func (a *SetAside) drop(seq uint64) {
	for i, e := range a.Events {
		if e.Seq == seq {
			a.Events = append(a.Events[:i], a.Events[i+1:]...)
			a.Count = max(0, a.Count-1)
			return
		}
	}
}

func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// retryAside tries the partition's set-aside events again, oldest first:
// one the log no longer holds leaves the record (what it was about is
// gone), one that applies now and finds nothing it changes moved on since
// is applied and leaves it, and the others stay.
func (v *Engine) retryAside(ctx context.Context, p *partition) {
	var rec SetAside
	if _, _, err := p.st.Get(ctx, AsideKey(p.name), &rec); err != nil || len(rec.Events) == 0 {
		return
	}
	for _, a := range append([]AsideEvent(nil), rec.Events...) {
		applied, err := v.retryOne(ctx, p, a.Seq, &rec)
		switch {
		case err != nil:
			p.log.Debug("views: an event set aside still cannot be applied", "seq", a.Seq, "err", err)
		case applied:
			p.log.Info("views: an event set aside was applied after all", "seq", a.Seq, "type", a.Type)
		}
	}
}

// errMovedOn says that an event set aside would change entries that
// later events changed since: only a rebuild applies it in order.
var errMovedOn = errors.New("entries it changes have changed since; tempmail rebuild applies it in order")

// retryOne applies the set-aside event at seq, if it can, and writes the
// record without it; applied is false when the log forgot it.
func (v *Engine) retryOne(ctx context.Context, p *partition, seq uint64, rec *SetAside) (applied bool, err error) {
	m, err := v.store.Stream().GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		rec.drop(seq)
		b := NewBatch(ctx, p.st, v.views, false, func(string) string { return p.name })
		b.aside = rec
		return false, v.write(ctx, p, b)
	}
	if err != nil {
		return false, err
	}
	pl, at, err := events.Decode(m.Data)
	if err != nil {
		return false, err
	}
	b := NewBatch(ctx, p.st, v.views, false, func(string) string { return p.name })
	b.strict = true
	if err := b.Apply(seq, m.Subject, at, pl); err != nil {
		return false, fmt.Errorf("event %d (%s): %w", seq, pl.EventType(), err)
	}
	if b.behind {
		return false, errMovedOn
	}
	next := *rec
	next.Events = append([]AsideEvent(nil), rec.Events...)
	next.drop(seq)
	b.aside = &next
	if err := v.write(ctx, p, b); err != nil {
		p.loaded = false
		p.st.ForgetAll()
		return false, err
	}
	*rec = next
	return true, nil
}

// SetAsideEvents names, for /readyz, the events each partition set aside:
// every node reads the same.
func (v *Engine) SetAsideEvents(ctx context.Context) ([]string, error) {
	var out []string
	for _, part := range v.store.Partitions() {
		var rec SetAside
		err := v.reader.Get(ctx, AsideKey(part), &rec, "events set aside")
		switch {
		case tempmail.KindOf(err) == tempmail.NotFound:
			continue
		case err != nil:
			return nil, err
		}
		if rec.Count == 0 {
			continue
		}
		var seqs []string
		for _, e := range rec.Events {
			seqs = append(seqs, fmt.Sprintf("%d (%s: %s)", e.Seq, e.Type, e.Error))
		}
		out = append(out, fmt.Sprintf("projection partition %s: %d events set aside, not applied to the views: %s; tempmail rebuild applies them again",
			part, rec.Count, strings.Join(seqs, ", ")))
	}
	return out, nil
}

// setAsideCounts are the events each partition set aside, for the gauge.
func (v *Engine) setAsideCounts(ctx context.Context) map[string]int64 {
	out := map[string]int64{}
	for _, part := range v.store.Partitions() {
		var rec SetAside
		if err := v.reader.Get(ctx, AsideKey(part), &rec, "events set aside"); err == nil {
			out[part] = rec.Count
		}
	}
	return out
}
