package projections

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections/engine"
	"tempmail/projections/view"
)

func TestRebuildMatchesLiveViews(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	populate(t, e.store)
	ctx := ctxT(t)
	scheduleBetweenEvents(t, e.store)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	live := snapshot(t, e.node.JS, bucketName(1))
	e.views.Stop()

	// Deletions were made final before the rebuild: only the 73 messages
	// still live (68 + 3 + 1, and the later inbox's) have content that
	// opens.
	opens := 0
	for _, ev := range storedEvents(t, e.store) {
		if m, ok := ev.Payload.(*events.MailReceived); ok {
			if _, err := e.store.Content(ctx, mailbox.ContentRef{MessageID: m.MessageID, Seq: ev.Seq, Key: m.Key}); err == nil {
				opens++
			}
		}
	}
	if opens != 73 {
		t.Errorf("%d messages have content that opens, want the 73 not deleted", opens)
	}

	res, err := Rebuild(ctx, e.node.JS, e.store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := uint64(len(storedEvents(t, e.store))); res.Generation != 2 || res.Events != n {
		t.Errorf("rebuild: %+v, want generation 2 and %d events", res, n)
	}
	rebuilt := snapshot(t, e.node.JS, bucketName(2))
	diffSnapshots(t, asRead(live), asRead(rebuilt))
	if len(live) < 20 {
		t.Fatalf("live views have only %d entries; the workload did not run", len(live))
	}
	hooks := 0
	for k := range rebuilt {
		if strings.HasPrefix(k, "w.") {
			hooks++
		}
	}
	if l, _ := rebuilt["webhooks"].(map[string]any); hooks != 2 || l == nil || len(l["items"].([]any)) != 1 {
		t.Errorf("rebuilt subscriptions: %d entries, list %v; want the one to every inbox and the big inbox's", hooks, rebuilt["webhooks"])
	}
	if _, err := e.node.JS.KeyValue(ctx, bucketName(1)); !errors.Is(err, jetstream.ErrBucketNotFound) {
		t.Errorf("old generation's bucket still there: %v", err)
	}

	// Serving the new generation continues after the replay, applying new
	// events once and the old ones not again.
	v2, err := Open(ctx, e.node.JS, e.store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Generation() != 2 {
		t.Fatalf("generation %d after rebuild, want 2", v2.Generation())
	}
	if err := v2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer v2.Stop()
	small, err := v2.InboxByAddress(ctx, "small@one.test")
	if err != nil {
		t.Fatal(err)
	}
	_, ack := deliver(t, e.store, inboxRef{id: small.ID, addr: small.Address, lifecycleSeq: small.LifecycleSeq}, "after rebuild")
	if err := v2.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	if small, _ = v2.Inbox(ctx, small.ID); small.Count != 4 {
		t.Errorf("after rebuild and one more message, count %d, want 4", small.Count)
	}
}

// TestRebuildInLittleMemoryMatchesLiveViews: a rebuild that may keep only a
// few records in memory lets them go and reads them back as it replays, and
// still builds the views readers see live.
func TestRebuildInLittleMemoryMatchesLiveViews(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	populate(t, e.store)
	ctx := ctxT(t)
	scheduleBetweenEvents(t, e.store)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	live := snapshot(t, e.node.JS, bucketName(1))
	e.views.Stop()
	kv, err := engine.ViewsBucket(ctx, e.node.JS, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	vs := &views{}
	st := view.NewBulk(e.node.JS, kv, 4<<10, 1000, vs) // a handful of records
	if _, err := engine.Replay(ctx, e.store, st, vs, 1); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st.Keys() <= len(live) {
		t.Errorf("%d writes for %d entries: records were not let go and written again", st.Keys(), len(live))
	}
	diffSnapshots(t, asRead(live), asRead(snapshot(t, e.node.JS, bucketName(7))))
}

// TestARebuildForgetsWhatItLetGoAsItGoes: a replay that lets much go (here
// a rebuild with a lower cap than the mail was kept under) makes the log
// forget it as it goes, rather than leave it all in one pending entry,
// which past a NATS message's size could not be written (the benchmark's
// rebuild failed so: "maximum payload exceeded").
func TestARebuildForgetsWhatItLetGoAsItGoes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	e.views.Stop() // the log keeps all the mail, as with no cap
	ctx := ctxT(t)
	in := oneInbox(t, e.store)
	const n, cap = engine.MaxPendingForget + 100, 10
	for i := range n {
		deliver(t, e.store, in, fmt.Sprint("m", i))
	}
	before, err := e.store.Stream().Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := engine.ViewsBucket(ctx, e.node.JS, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	vs := &views{rules: Rules{MaxMessages: cap}}
	st := view.NewBulk(e.node.JS, kv, 1<<20, 1000, vs)
	if _, err := engine.Replay(ctx, e.store, st, vs, 64); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := e.store.Stream().Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gone := before.State.Msgs - after.State.Msgs; gone < engine.MaxPendingForget {
		t.Errorf("the log holds %d events after the replay, %d before: it forgot %d of the %d messages the cap let go",
			after.State.Msgs, before.State.Msgs, gone, n-cap)
	}
	var pending engine.Pending
	if found, err := kvGet(ctx, kv, engine.PendingKey(e.store.PartitionOfAddress(in.addr)), &pending); err != nil || !found {
		t.Fatalf("pending forget: found %v, %v", found, err)
	}
	if left := len(pending.Forget.Messages); left == 0 || left >= engine.MaxPendingForget {
		t.Errorf("the pending forget holds %d messages, want the rest (fewer than %d)", left, engine.MaxPendingForget)
	}
}

func kvGet(ctx context.Context, kv jetstream.KeyValue, key string, rec view.Record) (bool, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, decode(e.Value(), rec)
}

// scheduleBetweenEvents makes an inbox with a lifetime, whose expiry puts a
// schedule in the stream, and delivers it a message: the replay passes
// over the schedule, between events.
func scheduleBetweenEvents(t *testing.T, s *events.Store) {
	t.Helper()
	later := events.InboxCreated{InboxID: uuid.NewString(), Address: "later@two.test", Token: "tok" + uuid.NewString(),
		DomainID: 2, CreatedAt: time.Unix(1700000000, 0).UTC(), ExpiresAt: time.Now().Add(time.Hour).UTC()}
	created, err := s.CreateInbox(ctxT(t), later, 0)
	if err != nil {
		t.Fatal(err)
	}
	deliver(t, s, inboxRef{id: later.InboxID, addr: later.Address, lifecycleSeq: created.Seq}, "after a schedule")
}
