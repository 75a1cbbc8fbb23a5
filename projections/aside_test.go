package projections

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"tempmail"
	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
	"tempmail/eventually"
	"tempmail/projections/engine"
	"tempmail/projections/view"
)

// lines is a slog handler that keeps the messages of the records it is
// given, for a test to count.
type lines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}
func (l *lines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *lines) WithGroup(string) slog.Handler      { return l }

// count says how many messages held part.
func (l *lines) count(part string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.Contains(m, part) {
			n++
		}
	}
	return n
}

// startViews opens and starts the views of store, logging to h.
func startViews(t *testing.T, e *env, h slog.Handler) *Views {
	t.Helper()
	v := startProcess(t, e.node, e.store, Options{Logger: slog.New(h), Exclusive: true})
	t.Cleanup(v.Stop)
	return v
}

// TestAnEventThatCannotApplyIsSetAside: an event the views cannot read,
// and one that would make an entry larger than NATS takes, each fail the
// same way every time. Each is set aside, logged once, named by /readyz's
// reader on every process and counted, and the partition goes on: the
// events after them are applied. A rebuild sets them aside again.
func TestAnEventThatCannotApplyIsSetAside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	node := natstest.StartNode(t, dir)
	e := &env{node: node, store: eventstest.OpenStore(t, node)}
	log := &lines{}
	v := startViews(t, e, log)
	ctx := ctxT(t)

	// An event of a schema this build does not know, in the sys partition.
	bad := nats.NewMsg("ev.sys.domains")
	bad.Data = []byte(`{"type":"DomainRenamed","v":9}` + "\n{}")
	bad.Header.Set("Nats-Expected-Last-Subject-Sequence", "0")
	ack, err := e.node.JS.PublishMsg(ctx, bad)
	if err != nil {
		t.Fatal(err)
	}
	undecodable := ack.Sequence
	// A tenant whose third key's name makes the tenant's entry, which
	// lists its keys, larger than a NATS message may be: stored in the
	// log (each event is below the limit), it can never be applied.
	seq := uint64(0)
	tenantEvent := func(p events.Payload) uint64 {
		t.Helper()
		ack, err := e.store.AppendTenantEvent(ctx, p, seq)
		if err != nil {
			t.Fatalf("%s: %v", p.EventType(), err)
		}
		seq = ack.Seq
		return ack.Seq
	}
	tenantEvent(events.TenantCreated{TenantID: "big", Name: "big", CreatedAt: time.Now().UTC()})
	var tooLarge uint64
	for i, c := range []string{"a", "b", "c"} {
		s := tenantEvent(events.KeyCreated{KeyID: "key-" + c, TenantID: "big", Name: strings.Repeat(c, 400<<10),
			Scopes: []string{"inboxes"}, Hash: strings.Repeat(c, 64), CreatedAt: time.Now().UTC()})
		if i == 2 {
			tooLarge = s
		}
	}
	// After both, in the same partition: a domain, and a change of the
	// tenant (which expects the tenant's last event as the log has it).
	after, err := e.store.AppendDomainEvent(ctx, &events.DomainAdded{ID: 1, Name: "after.test"}, undecodable)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.WaitApplied(ctx, after); err != nil {
		t.Fatalf("the partition did not go on past what it cannot apply: %v", err)
	}
	if d, err := v.DomainByName(ctx, "after.test"); err != nil || d.ID != 1 {
		t.Fatalf("the domain after the events set aside: %+v, %v", d, err)
	}
	if k, err := v.KeyByHash(ctx, strings.Repeat("b", 64)); err != nil || k.ID != "key-b" {
		t.Errorf("the key before the one set aside: %+v, %v", k, err)
	}
	if _, err := v.KeyByHash(ctx, strings.Repeat("c", 64)); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the key set aside is live in the views: %v", err)
	}

	notes := setAside(t, v, 2, undecodable, tooLarge)
	if n := log.count("set aside, the partition goes on"); n != 2 {
		t.Errorf("%d log lines say an event was set aside, want 2 (one each):\n%s", n, strings.Join(notes, "\n"))
	}

	// Another process reads the same, and a restart (which tries them
	// again, and fails again) keeps them; nothing is logged again.
	v.Stop()
	again := startViews(t, e, log)
	if err := again.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	setAside(t, again, 2, undecodable, tooLarge)
	if n := log.count("set aside, the partition goes on"); n != 2 {
		t.Errorf("after a restart, %d log lines say an event was set aside, want still 2", n)
	}

	// A rebuild applies the whole log again, and sets them aside again.
	again.Stop()
	if _, err := Rebuild(ctx, e.node.JS, e.store, Options{Logger: slog.New(log)}); err != nil {
		t.Fatalf("a rebuild over events that cannot apply: %v", err)
	}
	rebuilt := startViews(t, e, log)
	if err := rebuilt.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	setAside(t, rebuilt, 2, undecodable, tooLarge)
}

// setAside checks that v's reader names want set aside, and the gauge
// counts n, and returns what /readyz would say.
func setAside(t *testing.T, v *Views, n int, want ...uint64) []string {
	t.Helper()
	ctx := ctxT(t)
	var notes []string
	eventually.True(t, "the events set aside are named", func() bool {
		var err error
		notes, err = v.SetAsideEvents(ctx)
		return err == nil && len(notes) > 0
	})
	all := strings.Join(notes, "\n")
	for _, seq := range want {
		if !strings.Contains(all, " "+strconv.FormatUint(seq, 10)+" (") {
			t.Errorf("/readyz would not name event %d: %s", seq, all)
		}
	}
	if total := metric(t, v, "tempmail_projection_events_set_aside", ""); total != float64(n) {
		t.Errorf("the gauge counts %v events set aside, want %d: %s", total, n, all)
	}
	return notes
}

// TestARestartAppliesAnEventSetAsideOnceItCan: an event set aside that
// applies now (a build that reads it runs) is applied when a worker takes
// the partition after a restart, and leaves the record; one the log
// forgot since leaves it too.
func TestARestartAppliesAnEventSetAsideOnceItCan(t *testing.T) {
	t.Parallel()
	node := natstest.StartNode(t, t.TempDir())
	e := &env{node: node, store: eventstest.OpenStore(t, node)}
	ctx := ctxT(t)
	v, err := Open(ctx, e.node.JS, e.store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ack, err := e.store.AppendDomainEvent(ctx, &events.DomainAdded{ID: 1, Name: "late.test"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// As a build that could not apply it left the views: the checkpoint
	// past it, the event set aside, with one the log no longer holds.
	kv, err := e.node.JS.KeyValue(ctx, bucketName(v.Generation()))
	if err != nil {
		t.Fatal(err)
	}
	put := func(key string, rec view.Record) {
		data, err := encode(rec)
		if err == nil {
			_, err = kv.Put(ctx, key, data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	put(view.CheckpointKey(events.SysPartition), &view.Checkpoint{Meta: view.Meta{Seq: ack.Seq}, Counts: &Counts{}})
	put(engine.AsideKey(events.SysPartition), &engine.SetAside{Meta: view.Meta{Seq: ack.Seq}, Count: 2, Events: []engine.AsideEvent{
		{Seq: ack.Seq, Type: "DomainAdded", Error: "an older build could not apply it"},
		{Seq: ack.Seq + 1000, Type: "DomainAdded", Error: "forgotten since"}}})

	restarted := startViews(t, e, &lines{})
	eventually.True(t, "the event set aside is applied after the restart", func() bool {
		d, err := restarted.DomainByName(ctx, "late.test")
		return err == nil && d.ID == 1
	})
	eventually.True(t, "nothing is named set aside any more", func() bool {
		notes, err := restarted.SetAsideEvents(ctx)
		return err == nil && len(notes) == 0
	})
}
