package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
	"tempmail/eventually"
	"tempmail/projections/engine"
	"tempmail/projections/view"
)

func TestApplyingAnEventAgainChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	populate(t, e.store)
	ctx := ctxT(t)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	e.views.Stop()
	before := snapshot(t, e.node.JS, bucketName(1))

	// Every event again, in order, in one batch and one by one: each old
	// event now meets entries that already reflect it or a later one, as
	// after a redelivery or an overlapping hand-over.
	vs := &views{}
	store := openStore(t, e.node.JS, 1, vs)
	all := engine.NewBatch(ctx, store, vs, false, func(string) string { return "p" })
	for _, ev := range storedEvents(t, e.store) {
		one := engine.NewBatch(ctx, openStore(t, e.node.JS, 1, vs), vs, false, func(string) string { return "p" })
		for _, b := range []*engine.Batch{all, one} {
			if err := b.Apply(ev.Seq, ev.Subject, ev.Time, ev.Payload); err != nil {
				t.Fatalf("re-apply %d: %v", ev.Seq, err)
			}
		}
		if ws, d := changes(one); len(ws) != 0 || d["p"] != (Counts{}) || !one.Forget.Empty() {
			t.Errorf("re-applying %d alone would write %d entries, change the counts by %+v and forget %+v", ev.Seq, len(ws), d, one.Forget)
		}
	}
	if ws, d := changes(all); len(ws) != 0 || d["p"] != (Counts{}) || !all.Forget.Empty() {
		t.Errorf("re-applying every event would write %d entries, change the counts by %+v and forget %+v", len(ws), d, all.Forget)
	}
	diffSnapshots(t, before, snapshot(t, e.node.JS, bucketName(1)))
}

// openStore is a worker's store on generation gen's views bucket, as it
// is now.
func openStore(t *testing.T, js jetstream.JetStream, gen int, vs *views) *view.KV {
	t.Helper()
	kv, err := engine.ViewsBucket(ctxT(t), js, gen, 1)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := broker.NewEntries(ctxT(t), js, kv)
	if err != nil {
		t.Fatal(err)
	}
	return view.NewKV(js, entries, bucketName(gen), vs)
}

// changes are a batch's writes, in the order they are sent, and how they
// change the counts of each partition (engine.Batch.Changes).
func changes(b *engine.Batch) ([]view.Change, map[string]Counts) {
	runs, deltas := b.Changes()
	var ws []view.Change
	for _, run := range runs {
		ws = append(ws, run...)
	}
	return ws, deltas
}

// crashingStore is the real KV store, cut off after a number of writes: the
// process "dies" there, with whatever it wrote before in place.
type crashingStore struct {
	view.Store
	writesLeft int
}

var errCrashed = errors.New("crashed")

func (c *crashingStore) Write(ctx context.Context, ws []view.Change) error {
	n := min(c.writesLeft, len(ws))
	c.writesLeft -= n
	if err := c.Store.Write(ctx, ws[:n]); err != nil {
		return err
	}
	if n < len(ws) {
		return errCrashed
	}
	return nil
}

func TestProjectionResumesAfterCrashMidBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	e.views.Stop() // this test applies events itself
	ctx := ctxT(t)
	s := e.store
	if _, err := s.AppendDomainEvent(ctx, &events.DomainAdded{ID: 1, Name: "one.test"}, 0); err != nil {
		t.Fatal(err)
	}
	a := createInbox(t, s, "a@one.test", 0)
	ids := []string{}
	for i := range pageMaxItems + 4 {
		id, _ := deliver(t, s, a, fmt.Sprint("m", i))
		ids = append(ids, id)
	}
	for _, p := range []events.Payload{
		&events.MarkedRead{InboxID: a.id, MessageID: ids[1]},
		&events.Deleted{InboxID: a.id, MessageID: ids[len(ids)-1]},
		&events.Deleted{InboxID: a.id, MessageID: ids[0]},
		&events.MarkedRead{InboxID: a.id, MessageID: ids[2]},
		&events.MarkedRead{InboxID: a.id, MessageID: ids[3]},
		&events.Deleted{InboxID: a.id, MessageID: ids[2]},
		&events.MarkedRead{InboxID: a.id, MessageID: ids[len(ids)-2]},
	} {
		var msgID string
		switch p := p.(type) {
		case *events.MarkedRead:
			msgID = p.MessageID
		case *events.Deleted:
			msgID = p.MessageID
		}
		if _, err := s.AppendMessageEvent(ctx, a.addr, a.id, msgID, p); err != nil {
			t.Fatal(err)
		}
	}
	subscribe(t, s, "", inboxRef{})
	b := createInbox(t, s, "b@one.test", 0)
	subscribe(t, s, "b", b)
	deliver(t, s, b, "b0")
	if _, err := s.EndInbox(ctx, b.addr, &events.InboxExpired{InboxID: b.id, Address: b.addr}, b.lifecycleSeq); err != nil {
		t.Fatal(err)
	}
	evs := storedEvents(t, s)
	const per = 5 // events in a batch
	partOf := func(string) string { return "p" }

	// run applies every event, per events a batch, as a worker does: a
	// batch that fails is applied again, from what the store then holds,
	// with the counts as before it (the worker keeps them).
	vs := &views{rules: Rules{MaxMessages: pageMaxItems + 2}}
	run := func(st view.Store) (Counts, events.Forget) {
		var counts Counts
		var forget events.Forget
		for i := 0; i < len(evs); i += per {
			b := engine.NewBatch(ctx, st, vs, false, partOf)
			for attempt := 0; ; attempt++ {
				if attempt > 0 {
					b = b.Retry(ctx, st)
				}
				for _, ev := range evs[i:min(i+per, len(evs))] {
					if err := b.Apply(ev.Seq, ev.Subject, ev.Time, ev.Payload); err != nil {
						t.Fatalf("apply %d: %v", ev.Seq, err)
					}
				}
				ws, d := changes(b)
				err := st.Write(ctx, ws)
				if errors.Is(err, errCrashed) && attempt == 0 {
					if c, ok := st.(*crashingStore); ok {
						c.writesLeft = 1 << 30 // the process restarts
						if k, ok := c.Store.(*view.KV); ok {
							k.ForgetAll()
						}
					}
					// The forget of the failed attempt was written first
					// (f.<part>): it is kept, whatever the retry finds.
					forget.Add(b.Forget)
					continue
				}
				if err != nil {
					t.Fatalf("write batch at event %d: %v", evs[i].Seq, err)
				}
				counts.Add(d["p"])
				forget.Add(b.Forget)
				break
			}
		}
		return counts, forget
	}
	freshBucket := func(gen int) *view.KV { return openStore(t, e.node.JS, gen, vs) }
	counter := &crashingStore{Store: freshBucket(100), writesLeft: 1 << 30}
	total, wantForget := run(counter)
	// a lives with 32 of its 36 messages (2 evicted by the cap, 2
	// deleted; the events about those evicted are moot); b expired with
	// its message.
	if total != (Counts{Inboxes: 1, Messages: pageMaxItems}) {
		t.Fatalf("counts %+v, want 1 inbox and %d messages", total, pageMaxItems)
	}
	writes := 1<<30 - counter.writesLeft
	wantSnap := snapshot(t, e.node.JS, bucketName(100))

	// Crash after every possible number of writes, then resume from the
	// batch that was not finished (all before it were acknowledged).
	for n := 0; n < writes; n++ {
		gen := 200 + n
		crash := &crashingStore{Store: freshBucket(gen), writesLeft: n}
		counts, forget := run(crash)
		diffSnapshots(t, wantSnap, snapshot(t, e.node.JS, bucketName(gen)))
		if counts != total {
			t.Errorf("crash point %d: counts %+v, want %+v", n, counts, total)
		}
		if !sameForget(forget, wantForget) {
			t.Errorf("crash point %d: forgets %+v, want at least %+v", n, forget, wantForget)
		}
		if t.Failed() {
			t.Fatalf("views differ after a crash at write %d (counts %+v, want %+v)", n, counts, total)
		}
		_ = e.node.JS.DeleteKeyValue(ctx, bucketName(gen))
	}
	t.Logf("checked %d crash points", writes)
	if writes < 20 {
		t.Fatalf("only %d writes: the scenario is too small to mean anything", writes)
	}
}

// sameForget reports whether got forgets at least everything want does.
func sameForget(got, want events.Forget) bool {
	msgs := map[string]bool{}
	for _, m := range got.Messages {
		msgs[m.ID] = true
	}
	seqs := map[uint64]bool{}
	for _, s := range got.Seqs {
		seqs[s] = true
	}
	inboxes := map[string]bool{}
	for _, in := range got.Inboxes {
		inboxes[in.ID] = true
	}
	for _, m := range want.Messages {
		if !msgs[m.ID] {
			return false
		}
	}
	for _, s := range want.Seqs {
		if !seqs[s] {
			return false
		}
	}
	for _, in := range want.Inboxes {
		if !inboxes[in.ID] {
			return false
		}
	}
	claims := map[uint64]bool{}
	for _, c := range got.Claims {
		claims[c.Seq] = true
	}
	for _, c := range want.Claims {
		if !claims[c.Seq] {
			return false
		}
	}
	return len(got.Tenants) >= len(want.Tenants) && len(got.Domains) >= len(want.Domains)
}

// TestAnEntryWrittenByAnotherWorkerLosesNoEvent: while a partition is handed
// over, two workers may write the same entry; the one whose
// compare-and-swap fails applies its batch again from fresh reads. The
// batch's checkpoint must not be stored past that failure, or the worker
// takes the batch for applied and the message never shows.
func TestAnEntryWrittenByAnotherWorkerLosesNoEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	ctx := ctxT(t)
	in := oneInbox(t, e.store)
	_, ack := deliver(t, e.store, in, "first")
	if err := e.views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	// Another writer stores the inbox's entry again, as it is: the
	// worker's next compare-and-swap on it fails.
	entry, err := e.views.kv.Get(ctx, inboxKey(in.id))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.views.kv.Put(ctx, inboxKey(in.id), entry.Value()); err != nil {
		t.Fatal(err)
	}
	second, ack := deliver(t, e.store, in, "second")
	if err := e.views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	inbox, err := e.views.Inbox(ctx, in.id)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.views.Message(ctx, second); err != nil {
		t.Fatalf("the message delivered after the conflict, once the views say it is applied: %v", err)
	}
	if inbox.Count != 2 {
		t.Errorf("the inbox counts %d messages, want 2", inbox.Count)
	}
}

// TestAPageWrittenByAnotherWorkerLosesNoDeletion: a deletion in a closed
// list page writes the page, then the inbox entry. Should the page's
// compare-and-swap fail (another worker wrote it), the inbox entry must
// not be stored either: the worker would find it applied when it tries
// again, and the page would show the deleted message for good.
func TestAPageWrittenByAnotherWorkerLosesNoDeletion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	ctx := ctxT(t)
	in := oneInbox(t, e.store)
	var ids []string
	var ack events.Ack
	for i := range pageMaxItems + 1 {
		var id string
		id, ack = deliver(t, e.store, in, fmt.Sprint("m", i))
		ids = append(ids, id)
	}
	if err := e.views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	inbox, err := e.views.Inbox(ctx, in.id)
	if err != nil {
		t.Fatal(err)
	}
	if len(inbox.Pages) != 1 {
		t.Fatalf("the inbox has %d closed pages, want 1", len(inbox.Pages))
	}
	// Another writer stores the closed page again, as it is.
	key := pageKey(in.id, inbox.Pages[0].N)
	entry, err := e.views.kv.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.views.kv.Put(ctx, key, entry.Value()); err != nil {
		t.Fatal(err)
	}
	gone := ids[3] // in the closed page
	ack, err = e.store.AppendMessageEvent(ctx, in.addr, in.id, gone, &events.Deleted{InboxID: in.id, MessageID: gone})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	if inbox, err = e.views.Inbox(ctx, in.id); err != nil {
		t.Fatal(err)
	}
	list, err := e.views.Messages(ctx, inbox)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(list, func(s Summary) bool { return s.ID == gone }) || len(list) != pageMaxItems || inbox.Count != pageMaxItems {
		t.Errorf("after deleting one of %d messages: %d listed, count %d, the deleted one listed: %v",
			pageMaxItems+1, len(list), inbox.Count, slices.ContainsFunc(list, func(s Summary) bool { return s.ID == gone }))
	}
	// The page itself says so (readers also hide what the inbox's recent
	// changes say is deleted, for a while).
	entry, err = e.views.kv.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var pg Page
	if err := decode(entry.Value(), &pg); err != nil {
		t.Fatal(err)
	}
	for _, s := range pg.Items {
		if s.ID == gone && s.DeletedSeq == 0 {
			t.Errorf("the closed page still holds the deleted message, not marked deleted")
		}
	}
}

// TestMailIsNotForgottenOnAMissingInboxEntry: a worker that cannot find a
// message's inbox entry (a views stream that just changed leader answered
// "no such key") asks the log before it takes the inbox for ended and
// forgets the mail; while the log says the inbox is live it tries again.
func TestMailIsNotForgottenOnAMissingInboxEntry(t *testing.T) {
	t.Parallel()
	node := natstest.StartNode(t, t.TempDir())
	store := eventstest.OpenStore(t, node)
	var log lockedBuffer
	views, err := Open(t.Context(), node.JS, store, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := views.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(views.Stop)
	ctx := ctxT(t)
	in := oneInbox(t, store)
	_, ack := deliver(t, store, in, "first")
	if err := views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	entry, err := views.kv.Get(ctx, inboxKey(in.id))
	if err != nil {
		t.Fatal(err)
	}
	if err := views.kv.Purge(ctx, inboxKey(in.id)); err != nil {
		t.Fatal(err)
	}
	second, ack := deliver(t, store, in, "second")
	eventually.True(t, "the worker to find the inbox entry missing and try again", func() bool {
		return strings.Contains(log.String(), "inbox is live in the log")
	})
	if _, err := views.kv.Put(ctx, inboxKey(in.id), entry.Value()); err != nil {
		t.Fatal(err)
	}
	if err := views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	if _, _, err := views.Message(ctx, second); err != nil {
		t.Fatalf("the message that arrived while its inbox entry was missing: %v", err)
	}
}

// lockedBuffer is a log sink tests read while workers write.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// oneInbox makes the domain one.test and the inbox a@one.test in it.
func oneInbox(t *testing.T, s *events.Store) inboxRef {
	t.Helper()
	if _, err := s.AppendDomainEvent(ctxT(t), &events.DomainAdded{ID: 1, Name: "one.test"}, 0); err != nil {
		t.Fatal(err)
	}
	return createInbox(t, s, "a@one.test", 0)
}
