package projections

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/events"
	"tempmail/events/natstest"
)

// env is a real embedded node with the event store and running views.
type env struct {
	node  *events.Node
	store *events.Store
	views *Views
}

func newEnv(t *testing.T, dir string) *env {
	t.Helper()
	node := natstest.StartNode(t, dir)
	store := natstest.OpenStore(t, node)
	views, err := Open(t.Context(), node.JS, store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := views.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(views.Stop)
	return &env{node: node, store: store, views: views}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// inboxRef is what the workload keeps of an inbox it created.
type inboxRef struct {
	id, addr     string
	lifecycleSeq uint64
}

func createInbox(t *testing.T, s *events.Store, addr string, lifecycleSeq uint64) inboxRef {
	t.Helper()
	ev := events.InboxCreated{InboxID: uuid.NewString(), Address: addr, Token: "tok" + uuid.NewString(),
		Family: events.FamilyC, DomainID: 1, CreatedAt: time.Unix(1700000000, 0).UTC()}
	ack, err := s.CreateInbox(ctxT(t), ev, lifecycleSeq)
	if err != nil {
		t.Fatalf("create inbox %s: %v", addr, err)
	}
	return inboxRef{id: ev.InboxID, addr: addr, lifecycleSeq: ack.Seq}
}

func deliver(t *testing.T, s *events.Store, in inboxRef, subject string) (string, events.Ack) {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	ev := events.MailReceived{InboxID: in.id, MessageID: id, Address: in.addr,
		ReceivedAt: time.Unix(1700000100, 0).UTC(), Size: 100, Content: events.Content{Raw: []byte("Subject: " + subject + "\r\n\r\nhi\r\n"),
			From: "sender@example.com", FromName: "Sender", Subject: subject, Text: "body of " + subject,
			Attachments: []events.Attachment{{ID: id + "-1", Filename: "a.txt", ContentType: "text/plain", Size: 3, Part: "2"}}}}
	acks, err := s.Deliver(ctxT(t), []events.Delivery{{Mail: ev, LifecycleSeq: in.lifecycleSeq, DedupeID: "dedupe-" + id}})
	if err != nil {
		t.Fatalf("deliver to %s: %v", in.addr, err)
	}
	return id, acks[0]
}

// populate publishes a workload that touches every event type and view: many
// messages in one inbox (several list pages), reads, deletions of the newest
// and of a middle message, an inbox deleted with its mail, and its address
// claimed again by a new inbox.
func populate(t *testing.T, s *events.Store) map[string]inboxRef {
	t.Helper()
	ctx := ctxT(t)
	for i, name := range []string{"one.test", "two.test"} {
		if _, err := s.AppendDomainEvent(ctx, &events.DomainAdded{ID: i + 1, Name: name}, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	inboxes := map[string]inboxRef{}
	for _, name := range []string{"big", "small", "gone"} {
		inboxes[name] = createInbox(t, s, name+"@one.test", 0)
	}
	var big []string
	for i := range 70 {
		id, _ := deliver(t, s, inboxes["big"], fmt.Sprintf("big %d", i))
		big = append(big, id)
	}
	for i := range 3 {
		deliver(t, s, inboxes["small"], fmt.Sprintf("small %d", i))
		deliver(t, s, inboxes["gone"], fmt.Sprintf("gone %d", i))
	}
	bigRef := inboxes["big"]
	for _, id := range []string{big[0], big[10], big[69]} {
		if _, err := s.AppendMessageEvent(ctx, bigRef.addr, bigRef.id, id, &events.MarkedRead{InboxID: bigRef.id, MessageID: id}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{big[69], big[5]} { // the newest, and one on the first page
		if _, err := s.AppendMessageEvent(ctx, bigRef.addr, bigRef.id, id, &events.Deleted{InboxID: bigRef.id, MessageID: id}); err != nil {
			t.Fatal(err)
		}
	}
	// Webhook subscriptions: to every inbox (one kept, one deleted), to the
	// big inbox, and to the inbox about to end, which ends them.
	subscribe(t, s, "", inboxRef{})
	dropped := subscribe(t, s, "", inboxRef{})
	if _, err := s.DeleteWebhook(ctx, events.WebhookDeleted{WebhookID: dropped}); err != nil {
		t.Fatal(err)
	}
	subscribe(t, s, "big", bigRef)
	subscribe(t, s, "gone", inboxes["gone"])
	gone := inboxes["gone"]
	ack, err := s.EndInbox(ctx, gone.addr, &events.InboxDeleted{InboxID: gone.id, Address: gone.addr}, gone.lifecycleSeq)
	if err != nil {
		t.Fatal(err)
	}
	inboxes["again"] = createInbox(t, s, gone.addr, ack.Seq)
	deliver(t, s, inboxes["again"], "again 0")
	if _, err := s.AppendDomainEvent(ctx, &events.DomainDeactivated{ID: 2, Name: "two.test"}, 2); err != nil {
		t.Fatal(err)
	}
	return inboxes
}

// subscribe records a webhook subscription to in (name "": every inbox).
func subscribe(t *testing.T, s *events.Store, name string, in inboxRef) string {
	t.Helper()
	ev := events.WebhookCreated{WebhookID: uuid.NewString(), URL: "https://hooks.example/" + name,
		Events: []string{events.HookMessageReceived, events.HookInboxDeleted}, Secret: "whsec_c2VjcmV0",
		CreatedAt: time.Unix(1700000200, 0).UTC()}
	if name != "" {
		ev.InboxID, ev.Address = in.id, in.addr
	}
	if _, err := s.CreateWebhook(ctxT(t), ev, in.lifecycleSeq); err != nil {
		t.Fatalf("subscribe %s: %v", name, err)
	}
	return ev.WebhookID
}

// snapshot returns every live entry of a views bucket (tombstones left out:
// they are absent to every reader), decoded so that key order in the JSON
// does not matter.
func snapshot(t *testing.T, js jetstream.JetStream, bucket string) map[string]any {
	t.Helper()
	ctx := ctxT(t)
	kv, err := js.KeyValue(ctx, bucket)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for key := range keys.Keys() {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// A message entry's bodies follow its JSON head (codec.go).
		head, bodies, _ := bytes.Cut(e.Value(), []byte("\n"))
		var v map[string]any
		if err := json.Unmarshal(head, &v); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if len(bodies) > 0 {
			v["bodies"] = string(bodies)
		}
		if v["gone"] == true {
			continue
		}
		out[key] = v
	}
	return out
}

// asRead is a snapshot as readers see it, for comparing views built from
// different histories: a rebuild replays only what the log still holds,
// without the deletions that purged what they deleted. So list pages are
// laid out afresh and entries record other sequences; an inbox's list is
// compared whole, newest first, and sequences and page numbers not at all.
// Removals (for event streams that reconnect) record deletions and are
// left out.
func asRead(snap map[string]any) map[string]any {
	out := map[string]any{}
	lists := map[string][]any{}
	for k, v := range snap {
		e := maps.Clone(v.(map[string]any))
		delete(e, "seq")
		switch {
		case strings.HasPrefix(k, "r."):
			continue
		case strings.HasPrefix(k, "l."):
			inbox := k[2:strings.LastIndex(k, ".")]
			lists[inbox] = append(lists[inbox], e["items"].([]any)...)
			continue
		case strings.HasPrefix(k, "i."):
			delete(e, "pages")
			delete(e, "page_sizes")
			delete(e, "next_page")
		case strings.HasPrefix(k, "m."):
			delete(e, "page")
		}
		out[k] = e
	}
	for inbox, items := range lists {
		slices.SortFunc(items, func(a, b any) int {
			return int(b.(map[string]any)["content_seq"].(float64) - a.(map[string]any)["content_seq"].(float64))
		})
		out["list "+inbox] = items
	}
	return out
}

func diffSnapshots(t *testing.T, want, got map[string]any) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		w, _ := json.Marshal(want[k])
		g, ok := got[k]
		if !ok {
			t.Errorf("missing %s (want %s)", k, w)
			continue
		}
		gb, _ := json.Marshal(g)
		if string(w) != string(gb) {
			t.Errorf("%s differs:\nwant %s\n got %s", k, w, gb)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			gb, _ := json.Marshal(got[k])
			t.Errorf("unexpected %s = %s", k, gb)
		}
	}
}

func TestViewsFollowTheLog(t *testing.T) {
	e := newEnv(t, t.TempDir())
	inboxes := populate(t, e.store)
	ctx := ctxT(t)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}

	big, err := e.views.InboxByAddress(ctx, "big@one.test")
	if err != nil {
		t.Fatal(err)
	}
	if want := (70 + pageMaxItems - 1) / pageMaxItems; big.Count != 68 || len(big.Pages) != want {
		t.Errorf("big inbox: count %d pages %v, want 68 messages on %d pages", big.Count, big.Pages, want)
	}
	list, err := e.views.Messages(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 68 || list[0].Subject != "big 68" || list[len(list)-1].Subject != "big 0" {
		t.Errorf("big list: %d items, newest %q, oldest %q", len(list), list[0].Subject, list[len(list)-1].Subject)
	}
	if big.Latest != list[0].ID {
		t.Errorf("latest %s, want the newest listed %s", big.Latest, list[0].ID)
	}
	for _, s := range list {
		if s.Subject == "big 5" || s.Subject == "big 69" {
			t.Errorf("deleted message %q still listed", s.Subject)
		}
		if want := s.Subject == "big 0" || s.Subject == "big 10"; s.IsRead != want {
			t.Errorf("%q is_read %v, want %v", s.Subject, s.IsRead, want)
		}
	}
	if m, err := e.views.Message(ctx, big.Latest); err != nil || m.Subject != "big 68" || m.Text != "body of big 68" {
		t.Errorf("latest message: %+v, %v", m, err)
	}

	// The deleted inbox and its mail are gone; its address holds the new inbox.
	if _, err := e.views.Inbox(ctx, inboxes["gone"].id); err == nil {
		t.Error("deleted inbox still readable by id")
	}
	again, err := e.views.InboxByAddress(ctx, "gone@one.test")
	if err != nil || again.ID != inboxes["again"].id || again.Count != 1 {
		t.Errorf("re-created inbox: %+v, %v", again, err)
	}
	doms, _, err := e.views.Domains(ctx)
	if err != nil || len(doms) != 2 || !doms[0].Active || doms[1].Active {
		t.Errorf("domains: %+v, %v", doms, err)
	}
}

func TestRebuildMatchesLiveViews(t *testing.T) {
	e := newEnv(t, t.TempDir())
	populate(t, e.store)
	ctx := ctxT(t)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	live := snapshot(t, e.node.JS, bucketName(1))
	e.views.Stop()

	// Deletions were made final before the rebuild: only the 72 messages
	// still live (68 + 3 + 1) have content that opens.
	opens := 0
	for _, ev := range storedEvents(t, e.store) {
		if m, ok := ev.Payload.(*events.MailReceived); ok {
			if _, err := e.store.Content(ctx, events.ContentRef{MessageID: m.MessageID, Seq: ev.Seq, Key: m.Key}); err == nil {
				opens++
			}
		}
	}
	if opens != 72 {
		t.Errorf("%d messages have content that opens, want the 72 not deleted", opens)
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
	if len(live) < 80 {
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
	e := newEnv(t, t.TempDir())
	populate(t, e.store)
	ctx := ctxT(t)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	live := snapshot(t, e.node.JS, bucketName(1))
	e.views.Stop()
	kv, err := viewsBucket(ctx, e.node.JS, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := newRebuildStore(e.node.JS, kv, 4<<10, 1000) // a handful of records
	if _, err := replay(ctx, e.store, st); err != nil {
		t.Fatal(err)
	}
	if err := st.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st.keys <= len(live) {
		t.Errorf("%d writes for %d entries: records were not let go and written again", st.keys, len(live))
	}
	diffSnapshots(t, asRead(live), asRead(snapshot(t, e.node.JS, bucketName(7))))
}

// storedEvents reads every event in the stream (not content or schedules).
func storedEvents(t *testing.T, s *events.Store) []events.Event {
	t.Helper()
	ctx := ctxT(t)
	last, err := s.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []events.Event
	for seq := uint64(1); seq <= last; seq++ {
		m, err := s.Stream().GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // purged content
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(m.Subject, "ev.") {
			continue
		}
		p, at, err := events.Decode(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, events.Event{Seq: seq, Subject: m.Subject, Time: at, Payload: p})
	}
	return out
}

func TestApplyingAnEventAgainChangesNothing(t *testing.T) {
	e := newEnv(t, t.TempDir())
	populate(t, e.store)
	ctx := ctxT(t)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	e.views.Stop()
	before := snapshot(t, e.node.JS, bucketName(1))
	bucket, _ := e.node.JS.Stream(ctx, "KV_"+bucketName(1))
	info, _ := bucket.Info(ctx)

	// Every event again, in order: each old event now meets entries that
	// already reflect it or a later one, as after a redelivery or an
	// overlapping hand-over.
	st := newKVStore(e.node.JS, e.views.kv)
	for _, ev := range storedEvents(t, e.store) {
		d, err := applyCounting(ctx, st, ev.Seq, ev.Payload)
		if err != nil {
			t.Fatalf("re-apply %d: %v", ev.Seq, err)
		}
		if d != (Counts{}) {
			t.Errorf("re-applying %d changed the counts by %+v", ev.Seq, d)
		}
	}
	after, _ := bucket.Info(ctx)
	if after.State.LastSeq != info.State.LastSeq {
		t.Errorf("re-applying wrote %d view entries, want none", after.State.LastSeq-info.State.LastSeq)
	}
	diffSnapshots(t, before, snapshot(t, e.node.JS, bucketName(1)))
}

// crashingStore is the real KV store, cut off after a number of writes: the
// process "dies" there, with whatever it wrote before in place.
type crashingStore struct {
	viewStore
	writesLeft int
}

var errCrashed = errors.New("crashed")

func (c *crashingStore) put(ctx context.Context, key string, rev uint64, rec record) error {
	if c.writesLeft == 0 {
		return errCrashed
	}
	c.writesLeft--
	return c.viewStore.put(ctx, key, rev, rec)
}

func (c *crashingStore) tombstone(ctx context.Context, key string, rev uint64, seq uint64) error {
	if c.writesLeft == 0 {
		return errCrashed
	}
	c.writesLeft--
	return c.viewStore.tombstone(ctx, key, rev, seq)
}

func TestProjectionResumesAfterCrashMidEvent(t *testing.T) {
	e := newEnv(t, t.TempDir())
	e.views.Stop() // this test applies events itself
	ctx := ctxT(t)
	s := e.store
	if _, err := s.AppendDomainEvent(ctx, &events.DomainAdded{ID: 1, Name: "one.test"}, 0); err != nil {
		t.Fatal(err)
	}
	a := createInbox(t, s, "a@one.test", 0)
	ids := []string{}
	for i := range 4 {
		id, _ := deliver(t, s, a, fmt.Sprint("m", i))
		ids = append(ids, id)
	}
	for _, p := range []events.Payload{
		&events.MarkedRead{InboxID: a.id, MessageID: ids[1]},
		&events.Deleted{InboxID: a.id, MessageID: ids[3]},
		&events.Deleted{InboxID: a.id, MessageID: ids[0]},
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

	freshBucket := func(gen int) viewStore {
		kv, err := viewsBucket(ctx, e.node.JS, gen, 1)
		if err != nil {
			t.Fatal(err)
		}
		return newKVStore(e.node.JS, kv)
	}
	want := freshBucket(100)
	writes := 0
	counter := &crashingStore{viewStore: want, writesLeft: 1 << 30}
	var total Counts
	for _, ev := range evs {
		d, err := applyCounting(ctx, counter, ev.Seq, ev.Payload)
		if err != nil {
			t.Fatal(err)
		}
		total.add(d)
	}
	// a lives with m1 and m2; b expired with its message.
	if total != (Counts{Inboxes: 1, Messages: 2}) {
		t.Fatalf("counts %+v, want 1 inbox and 2 messages", total)
	}
	writes = 1<<30 - counter.writesLeft
	wantSnap := snapshot(t, e.node.JS, bucketName(100))

	// Crash after every possible number of writes, then resume from the
	// event that was not finished (all before it were acknowledged).
	for n := 0; n < writes; n++ {
		gen := 200 + n
		st := freshBucket(gen)
		crash := &crashingStore{viewStore: st, writesLeft: n}
		resumeAt := len(evs)
		// The counts, as a worker keeps them: what the writes that were
		// made changed, a failed attempt's included.
		var counts Counts
		for i, ev := range evs {
			d, err := applyCounting(ctx, crash, ev.Seq, ev.Payload)
			counts.add(d)
			if err != nil {
				if !errors.Is(err, errCrashed) {
					t.Fatalf("crash point %d: %v", n, err)
				}
				resumeAt = i
				break
			}
		}
		for _, ev := range evs[resumeAt:] {
			d, err := applyCounting(ctx, st, ev.Seq, ev.Payload)
			if err != nil {
				t.Fatalf("crash point %d, resuming at event %d: %v", n, ev.Seq, err)
			}
			counts.add(d)
		}
		if counts != total {
			t.Errorf("crash point %d: counts %+v, want %+v", n, counts, total)
		}
		got := snapshot(t, e.node.JS, bucketName(gen))
		diffSnapshots(t, wantSnap, got)
		if t.Failed() {
			t.Fatalf("views differ after a crash at write %d (event %d)", n, evs[resumeAt].Seq)
		}
		_ = e.node.JS.DeleteKeyValue(ctx, bucketName(gen))
	}
	t.Logf("checked %d crash points", writes)
	if writes < 20 {
		t.Fatalf("only %d writes: the scenario is too small to mean anything", writes)
	}
}

func TestViewsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, dir)
	populate(t, e.store)
	ctx := ctxT(t)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, e.node.JS, bucketName(1))
	e.views.Stop()
	natstest.Stop(e.node)
	e.store.Close()

	e2 := newEnv(t, dir)
	if err := e2.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	// The log holds what is live: 72 messages received (2 of them read),
	// 3 inboxes, the domain list's 3 events, 2 subscriptions; what was
	// deleted, and the ended inbox, left it.
	if n := len(storedEvents(t, e2.store)); n != 82 {
		t.Errorf("after restart the stream has %d events, want the 82 of what is live", n)
	}
	diffSnapshots(t, before, snapshot(t, e2.node.JS, bucketName(1)))
	big, err := e2.views.InboxByAddress(ctx, "big@one.test")
	if err != nil || big.Count != 68 {
		t.Fatalf("big inbox after restart: %+v, %v", big, err)
	}
	// New events after the restart are applied once.
	_, ack := deliver(t, e2.store, inboxRef{id: big.ID, addr: big.Address, lifecycleSeq: big.LifecycleSeq}, "after restart")
	if err := e2.views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	if big, _ = e2.views.Inbox(ctx, big.ID); big.Count != 69 {
		t.Errorf("count %d after one more message, want 69", big.Count)
	}
}

// A scheduled expiry can fire for an inbox that was deleted already, after
// its address went to a new inbox. The stale event ends nothing, and the new
// inbox goes on receiving mail.
func TestStaleExpiryOfAnEarlierInboxChangesNothing(t *testing.T) {
	e := newEnv(t, t.TempDir())
	ctx := ctxT(t)
	old := createInbox(t, e.store, "reused@one.test", 0)
	ended, err := e.store.EndInbox(ctx, old.addr, &events.InboxDeleted{InboxID: old.id, Address: old.addr}, old.lifecycleSeq)
	if err != nil {
		t.Fatal(err)
	}
	cur := createInbox(t, e.store, old.addr, ended.Seq)
	// The late expiry of the old inbox, as the scheduler would publish it.
	stale, err := e.store.EndInbox(ctx, old.addr, &events.InboxExpired{InboxID: old.id, Address: old.addr}, cur.lifecycleSeq)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.views.WaitApplied(ctx, stale); err != nil {
		t.Fatal(err)
	}
	in, err := e.views.InboxByAddress(ctx, old.addr)
	if err != nil || in.ID != cur.id || !in.Live(time.Now()) || in.LifecycleSeq != stale.Seq {
		t.Fatalf("after a stale expiry: %+v %v; want the new inbox live, expecting the stale event", in, err)
	}
	_, ack := deliver(t, e.store, inboxRef{id: in.ID, addr: in.Address, lifecycleSeq: in.LifecycleSeq}, "still here")
	if err := e.views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	if in, _ = e.views.Inbox(ctx, cur.id); in.Count != 1 {
		t.Errorf("new inbox count %d, want 1", in.Count)
	}
}
