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
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"tempmail/broker"
	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
	"tempmail/mailbox"
	"tempmail/projections/engine"
	"tempmail/projections/entry"
	"tempmail/projections/view"
)

// env is a real embedded node with the event store and running views.
type env struct {
	node  *broker.Node
	store *events.Store
	views *Views
}

func newEnv(t *testing.T, dir string) *env {
	t.Helper()
	node := natstest.StartNode(t, dir)
	store := eventstest.OpenStore(t, node)
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

// startProcess opens and starts a process's views over node and store, as
// one more process sharing them would.
func startProcess(t *testing.T, node *broker.Node, store *events.Store, opts Options) *Views {
	t.Helper()
	v, err := Open(t.Context(), node.JS, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return v
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
		DomainID: 1, CreatedAt: time.Unix(1700000000, 0).UTC()}
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
		ReceivedAt: time.Unix(1700000100, 0).UTC(), Size: 100, Content: mailbox.Content{Raw: []byte("Subject: " + subject + "\r\n\r\nhi\r\n"),
			From: "sender@example.com", FromName: "Sender", Subject: subject, Text: "body of " + subject,
			Attachments: []mailbox.Attachment{{ID: id + "-1", Filename: "a.txt", ContentType: "text/plain", Size: 3, Part: "2"}}}}
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
	populateTenants(t, s, inboxes)
	return inboxes
}

// populateTenants adds tenants to the workload: "kept" with a key kept,
// a key revoked, a device kept and one deleted, and two inboxes, one of
// them ended; "dropped" with a key, a device and an inbox, deleted.
func populateTenants(t *testing.T, s *events.Store, inboxes map[string]inboxRef) {
	t.Helper()
	ctx := ctxT(t)
	at := time.Unix(1700000300, 0).UTC()
	seqs := map[string]uint64{}
	tenantEvent := func(p events.Payload) {
		t.Helper()
		ack, err := s.AppendTenantEvent(ctx, p, seqs[events.TenantOf(p)])
		if err != nil {
			t.Fatalf("%s: %v", p.EventType(), err)
		}
		seqs[events.TenantOf(p)] = ack.Seq
	}
	device := func(p events.Payload) {
		t.Helper()
		var ack events.Ack
		var err error
		switch ev := p.(type) {
		case events.DeviceCreated:
			ack, err = s.CreateDevice(ctx, ev, seqs[ev.TenantID])
		case events.DeviceDeleted:
			ack, err = s.DeleteDevice(ctx, ev)
		}
		if err != nil {
			t.Fatalf("%s: %v", p.EventType(), err)
		}
		seqs[events.TenantOf(p)] = ack.Seq
	}
	for _, name := range []string{"kept", "dropped"} {
		tenantEvent(events.TenantCreated{TenantID: "tenant-" + name, Name: name, Quota: events.Quota{Inboxes: 10}, CreatedAt: at})
		tenantEvent(events.KeyCreated{KeyID: "key-" + name, TenantID: "tenant-" + name, Name: "ci", Scopes: []string{"inboxes"},
			Hash: strings.Repeat(name[:1], 64), CreatedAt: at})
		ev := events.InboxCreated{InboxID: uuid.NewString(), Address: "owned-" + name + "@one.test", Token: "tok" + uuid.NewString(),
			DomainID: 1, CreatedAt: at, TenantID: "tenant-" + name}
		acks, err := s.CreateTenantInbox(ctx, ev, 0, seqs[ev.TenantID])
		if err != nil {
			t.Fatal(err)
		}
		seqs[ev.TenantID] = acks[0].Seq
		inboxes["owned-"+name] = inboxRef{id: ev.InboxID, addr: ev.Address, lifecycleSeq: acks[1].Seq}
		device(events.DeviceCreated{TenantID: "tenant-" + name, DeviceID: "device-" + name, Name: "phone",
			Secret: []byte("secret of " + name), CreatedAt: at})
	}
	device(events.DeviceCreated{TenantID: "tenant-kept", DeviceID: "device-deleted", Name: "old phone",
		Secret: []byte("secret deleted"), CreatedAt: at})
	device(events.DeviceDeleted{TenantID: "tenant-kept", DeviceID: "device-deleted"})
	tenantEvent(events.KeyCreated{KeyID: "key-revoked", TenantID: "tenant-kept", Name: "old", Scopes: []string{"read"},
		Hash: strings.Repeat("r", 64), CreatedAt: at})
	tenantEvent(events.KeyRevoked{KeyID: "key-revoked", TenantID: "tenant-kept"})
	tenantEvent(events.TenantChanged{TenantID: "tenant-kept", Name: "kept", Quota: events.Quota{Inboxes: 20}})
	ev := events.InboxCreated{InboxID: uuid.NewString(), Address: "owned-ended@two.test", Token: "tok" + uuid.NewString(),
		DomainID: 2, CreatedAt: at, TenantID: "tenant-kept"}
	acks, err := s.CreateTenantInbox(ctx, ev, 0, seqs[ev.TenantID])
	if err != nil {
		t.Fatal(err)
	}
	endAcks, err := s.EndTenantInbox(ctx, ev.Address, ev.TenantID, &events.InboxDeleted{InboxID: ev.InboxID, Address: ev.Address}, acks[1].Seq)
	if err != nil {
		t.Fatal(err)
	}
	ended := endAcks[0]
	tenantEvent(events.TenantDeleted{TenantID: "tenant-dropped"})
	// Its inbox ended after it, as the deletion ends them.
	dropped := inboxes["owned-dropped"]
	endedAcks, err := s.EndTenantInbox(ctx, dropped.addr, "tenant-dropped", &events.InboxDeleted{InboxID: dropped.id, Address: dropped.addr}, dropped.lifecycleSeq)
	if err != nil {
		t.Fatal(err)
	}
	endedToo := endedAcks[0]
	delete(inboxes, "owned-dropped")
	// Their addresses claimed again, without a tenant: the partitions keep
	// an event for a rebuild to replay (one whose every inbox ended leaves
	// none, and no checkpoint to compare).
	inboxes["anonymous-again"] = createInbox(t, s, ev.Address, ended.Seq)
	inboxes["anonymous-again-too"] = createInbox(t, s, dropped.addr, endedToo.Seq)
}

// subscribe records a webhook subscription to in (name "": every inbox).
func subscribe(t *testing.T, s *events.Store, name string, in inboxRef) string {
	t.Helper()
	ev := events.WebhookCreated{WebhookID: uuid.NewString(), URL: "https://hooks.example/" + name,
		Events: []string{mailbox.HookMessageReceived, mailbox.HookInboxDeleted}, Secret: "whsec_c2VjcmV0",
		CreatedAt: time.Unix(1700000200, 0).UTC()}
	if name != "" {
		ev.InboxID, ev.Address = in.id, in.addr
	}
	if _, err := s.CreateWebhook(ctxT(t), ev, in.lifecycleSeq, nil); err != nil {
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
	if len(value) > 0 && value[0] == entry.BinaryMark {
		var rec view.Record = &Page{}
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

// storedEvents reads every event in the stream (not content or schedules).
// encode and decode are the views' stored form (package entry).
func encode(rec view.Record) ([]byte, error)    { return entry.Encode(rec) }
func decode(data []byte, rec view.Record) error { return entry.Decode(data, rec) }

// bucketName is the views bucket of a generation.
func bucketName(gen int) string { return engine.BucketName(gen) }

// metric is the value of the views' counter or gauge name, summed over
// its series of partition part ("": every partition), as a scrape of
// v's metrics reads it.
func metric(t *testing.T, v *Views, name, part string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	v.Instrument(reg)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if part != "" && !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
				return l.GetName() == "partition" && l.GetValue() == part
			}) {
				continue
			}
			sum += m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	return sum
}

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
