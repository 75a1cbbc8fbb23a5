package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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
	views, err := Open(t.Context(), node.JS, store, Options{Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})
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
	id := events.NewMessageID(in.id)
	ev := events.MailReceived{InboxID: in.id, MessageID: id, Address: in.addr,
		ReceivedAt: time.Unix(1700000100, 0).UTC(), Size: 100, Content: events.Content{Raw: []byte("Subject: " + subject + "\r\n\r\nhi\r\n"),
			From: "sender@example.com", FromName: "Sender", Subject: subject, Text: "body of " + subject,
			Attachments: []events.Attachment{{ID: id + "-1", Filename: "a.txt", ContentType: "text/plain", Size: 3, Part: "2"}}}}
	acks, err := s.AppendMail(ctxT(t), []events.Copy{{Mail: ev, LifecycleSeq: in.lifecycleSeq, DedupeID: "dedupe-" + id}})
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
		v := asJSON(t, key, e.Value())
		if v["gone"] == true {
			continue
		}
		out[key] = v
	}
	return out
}

// asJSON is a view entry as a JSON object, whether it is stored in JSON or
// in binary (codec.go).
func asJSON(t *testing.T, key string, value []byte) map[string]any {
	t.Helper()
	data := value
	if len(value) > 0 && value[0] == binaryMark {
		var rec record = &Page{}
		if strings.HasPrefix(key, "i.") {
			rec = &Inbox{}
		}
		if err := decode(value, rec); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		data, _ = json.Marshal(rec)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return v
}

// asRead is a snapshot as readers see it, for comparing views built from
// different histories: a rebuild replays only what the log still holds,
// without the deletions that let go of what they deleted. So list pages
// are laid out afresh and entries record other sequences; an inbox's list
// is compared whole, newest first, and sequences, page numbers, the marks
// event streams read and what the log is still to forget not at all.
func asRead(snap map[string]any) map[string]any {
	out := map[string]any{}
	lists := map[string][]any{}
	for k, v := range snap {
		e := maps.Clone(v.(map[string]any))
		delete(e, "seq")
		switch {
		case strings.HasPrefix(k, "f."):
			continue
		case strings.HasPrefix(k, "l."):
			inbox := k[2:strings.LastIndex(k, ".")]
			for _, it := range e["items"].([]any) {
				if it.(map[string]any)["deleted"] == nil {
					lists[inbox] = append(lists[inbox], it)
				}
			}
			continue
		case strings.HasPrefix(k, "i."):
			if head, ok := e["head"].([]any); ok {
				lists[k[2:]] = append(lists[k[2:]], head...)
			}
			for _, f := range []string{"head", "pages", "next_page", "marks", "forgotten"} {
				delete(e, f)
			}
		}
		out[k] = e
	}
	for inbox, items := range lists {
		slices.SortFunc(items, func(a, b any) int {
			return int(b.(map[string]any)["seq"].(float64) - a.(map[string]any)["seq"].(float64))
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
	if want := 70 / pageMaxItems; big.Count != 68 || len(big.Pages) != want || len(big.Head) != 70%pageMaxItems-1 {
		t.Errorf("big inbox: count %d, %d in its open page, closed pages %v; want 68 messages, %d closed pages",
			big.Count, len(big.Head), big.Pages, want)
	}
	list, err := e.views.Messages(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 68 || list[0].Subject != "big 68" || list[len(list)-1].Subject != "big 0" {
		t.Errorf("big list: %d items, newest %q, oldest %q", len(list), list[0].Subject, list[len(list)-1].Subject)
	}
	if big.Latest() != list[0].ID {
		t.Errorf("latest %s, want the newest listed %s", big.Latest(), list[0].ID)
	}
	for _, s := range list {
		if s.Subject == "big 5" || s.Subject == "big 69" {
			t.Errorf("deleted message %q still listed", s.Subject)
		}
		if want := s.Subject == "big 0" || s.Subject == "big 10"; s.IsRead != want {
			t.Errorf("%q is_read %v, want %v", s.Subject, s.IsRead, want)
		}
	}
	if m, err := e.views.Message(ctx, big.Latest()); err != nil || m.Subject != "big 68" || m.Text != "body of big 68" {
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
	if _, err := replay(ctx, e.store, st, Rules{}, 1); err != nil {
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

	// Every event again, in order, in one batch and one by one: each old
	// event now meets entries that already reflect it or a later one, as
	// after a redelivery or an overlapping hand-over.
	all := newBatch(ctx, newKVStore(e.node.JS, e.views.entries, bucketName(1)), Rules{}, func(string) string { return "p" })
	for _, ev := range storedEvents(t, e.store) {
		one := newBatch(ctx, newKVStore(e.node.JS, e.views.entries, bucketName(1)), Rules{}, func(string) string { return "p" })
		for _, b := range []*batch{all, one} {
			if err := b.apply(ev.Seq, ev.Subject, ev.Time, ev.Payload); err != nil {
				t.Fatalf("re-apply %d: %v", ev.Seq, err)
			}
		}
		if ws, d := one.changes(); len(ws) != 0 || d["p"] != (Counts{}) || !one.forget.Empty() {
			t.Errorf("re-applying %d alone would write %d entries, change the counts by %+v and forget %+v", ev.Seq, len(ws), d, one.forget)
		}
	}
	if ws, d := all.changes(); len(ws) != 0 || d["p"] != (Counts{}) || !all.forget.Empty() {
		t.Errorf("re-applying every event would write %d entries, change the counts by %+v and forget %+v", len(ws), d, all.forget)
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

func (c *crashingStore) write(ctx context.Context, ws []change) error {
	n := min(c.writesLeft, len(ws))
	c.writesLeft -= n
	if err := c.viewStore.write(ctx, ws[:n]); err != nil {
		return err
	}
	if n < len(ws) {
		return errCrashed
	}
	return nil
}

func TestProjectionResumesAfterCrashMidBatch(t *testing.T) {
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
	run := func(st viewStore) (Counts, events.Forget) {
		var counts Counts
		var forget events.Forget
		for i := 0; i < len(evs); i += per {
			b := newBatch(ctx, st, Rules{MaxMessages: pageMaxItems + 2}, partOf)
			for attempt := 0; ; attempt++ {
				if attempt > 0 {
					b = b.retry(ctx, st)
				}
				for _, ev := range evs[i:min(i+per, len(evs))] {
					if err := b.apply(ev.Seq, ev.Subject, ev.Time, ev.Payload); err != nil {
						t.Fatalf("apply %d: %v", ev.Seq, err)
					}
				}
				ws, d := b.changes()
				err := st.write(ctx, ws)
				if errors.Is(err, errCrashed) && attempt == 0 {
					if c, ok := st.(*crashingStore); ok {
						c.writesLeft = 1 << 30 // the process restarts
						if k, ok := c.viewStore.(*kvStore); ok {
							k.forgetAll()
						}
					}
					// The forget of the failed attempt was written first
					// (f.<part>): it is kept, whatever the retry finds.
					forget.Add(b.forget)
					continue
				}
				if err != nil {
					t.Fatalf("write batch at event %d: %v", evs[i].Seq, err)
				}
				counts.add(d["p"])
				forget.Add(b.forget)
				break
			}
		}
		return counts, forget
	}
	freshBucket := func(gen int) *kvStore {
		kv, err := viewsBucket(ctx, e.node.JS, gen, 1)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := events.NewEntries(ctx, e.node.JS, kv)
		if err != nil {
			t.Fatal(err)
		}
		return newKVStore(e.node.JS, entries, bucketName(gen))
	}
	counter := &crashingStore{viewStore: freshBucket(100), writesLeft: 1 << 30}
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
		crash := &crashingStore{viewStore: freshBucket(gen), writesLeft: n}
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
	return true
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
