package events_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"tempmail"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
	"tempmail/mailbox"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func inbox(addr string) events.InboxCreated {
	return events.InboxCreated{InboxID: "id-" + addr, Address: addr, Token: "tok-" + addr,
		CreatedAt: time.Now().UTC()}
}

func TestConcurrentClaimsOfOneAddressExactlyOneWins(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	for round := range 5 {
		addr := "race" + string(rune('a'+round)) + "@x.test"
		const n = 16
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				ev := inbox(addr)
				ev.InboxID = ev.InboxID + string(rune('a'+i))
				_, errs[i] = s.CreateInbox(ctx, ev, 0)
			})
		}
		close(start)
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case tempmail.KindOf(err) != tempmail.Conflict:
				t.Fatalf("a losing claim failed with %v, want a conflict", err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d claims of %s won, want exactly 1", round, wins, addr)
		}
	}
}

func TestAddressCanBeClaimedAgainOnlyAfterItsInboxEnded(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	ev := inbox("again@x.test")
	created, err := s.CreateInbox(ctx, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateInbox(ctx, ev, 0); tempmail.KindOf(err) != tempmail.Conflict {
		t.Fatalf("claim while live: %v, want conflict", err)
	}
	ended, err := s.EndInbox(ctx, ev.Address, &events.InboxDeleted{InboxID: ev.InboxID, Address: ev.Address}, created.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.EndInbox(ctx, ev.Address, &events.InboxDeleted{InboxID: ev.InboxID, Address: ev.Address}, created.Seq); tempmail.KindOf(err) != tempmail.NotFound {
		t.Fatalf("ending twice: %v, want not found", err)
	}
	if _, err := s.CreateInbox(ctx, ev, created.Seq); tempmail.KindOf(err) != tempmail.Conflict {
		t.Fatalf("claim with a stale sequence: %v, want conflict", err)
	}
	if _, err := s.CreateInbox(ctx, ev, ended.Seq); err != nil {
		t.Fatalf("claim after the inbox ended: %v", err)
	}
}

func TestDeliveryIsDedupedAndRefusedAfterTheInboxEnds(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	ev := inbox("mail@x.test")
	created, err := s.CreateInbox(ctx, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := events.MailReceived{InboxID: ev.InboxID, MessageID: uuid.NewString(), Address: ev.Address, Content: mailbox.Content{Raw: []byte("x")}}
	first, err := deliverOne(ctx, s, m, created.Seq, "same-bytes")
	if err != nil || first.Duplicate {
		t.Fatalf("first delivery: %+v, %v", first, err)
	}
	m.MessageID = uuid.NewString() // a retry gets a new id, but carries the same bytes
	retry, err := deliverOne(ctx, s, m, created.Seq, "same-bytes")
	if err != nil || !retry.Duplicate || retry.Seq != first.Seq {
		t.Fatalf("retried delivery: %+v, %v; want the first event back as a duplicate", retry, err)
	}
	if _, err := s.EndInbox(ctx, ev.Address, &events.InboxExpired{InboxID: ev.InboxID, Address: ev.Address}, created.Seq); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Stream().Info(ctx)
	m.MessageID = uuid.NewString()
	if _, err := deliverOne(ctx, s, m, created.Seq, "other-bytes"); tempmail.KindOf(err) != tempmail.NotFound {
		t.Fatalf("delivery to an ended inbox: %v, want not found", err)
	}
	if after, _ := s.Stream().Info(ctx); after.State.Msgs != before.State.Msgs {
		t.Fatalf("a refused delivery left %d messages in the stream", after.State.Msgs-before.State.Msgs)
	}
}

func TestEventsRoundTripAndUnknownVersionsAreRefused(t *testing.T) {
	t.Parallel()
	in := &events.MailReceived{InboxID: "i", MessageID: "m", Key: 7, Size: 3, Content: mailbox.Content{Subject: "héllo"},
		Sealed: []byte("sealed\nbytes\x00")}
	b, err := events.Encode(in, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("héllo")) {
		t.Errorf("the event's JSON holds its content: %s", b)
	}
	p, _, err := events.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := p.(*events.MailReceived)
	if !ok || got.Key != 7 || got.Size != 3 || string(got.Sealed) != string(in.Sealed) || got.Content.Subject != "" {
		t.Fatalf("round trip: %#v", p)
	}

	head, _, _ := bytes.Cut(b, []byte("\n"))
	var env map[string]any
	_ = json.Unmarshal(head, &env)
	env["v"] = 99
	future, _ := json.Marshal(env)
	if _, _, err := events.Decode(future); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("decoding version 99: %v, want a version error", err)
	}
	env["type"] = "SomethingNew"
	unknown, _ := json.Marshal(env)
	if _, _, err := events.Decode(unknown); err == nil || !strings.Contains(err.Error(), "unknown type") {
		t.Errorf("decoding an unknown type: %v, want an error", err)
	}
}

func TestOpenStoreIsIdempotentAndKeepsThePartitionCount(t *testing.T) {
	t.Parallel()
	n := natstest.StartNode(t, t.TempDir())
	ctx := ctxT(t)
	s1, err := events.OpenStore(ctx, n.JS, events.StoreConfig{Partitions: 4})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := events.OpenStore(ctx, n.JS, events.StoreConfig{Partitions: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	defer s2.Close()
	if got := len(s2.Partitions()); got != 5 || len(s1.Partitions()) != 5 {
		t.Errorf("partitions after reopening with another count: %d, want sys + 4", got)
	}
	if a, b := s1.PartitionOfAddress("x@y.test"), s2.PartitionOfAddress("x@y.test"); a != b {
		t.Errorf("partition of one address changed: %s vs %s", a, b)
	}
}

func deliverOne(ctx context.Context, s *events.Store, m events.MailReceived, lifecycleSeq uint64, dedupe string) (events.Ack, error) {
	acks, err := s.AppendMail(ctx, []events.Copy{{Mail: m, LifecycleSeq: lifecycleSeq, DedupeID: dedupe}})
	if err != nil {
		return events.Ack{}, err
	}
	return acks[0], nil
}

// An ending applied again after the views forgot that it ended the inbox
// (its tombstones expired while a purge was cut off) still erases what the
// inbox's messages said and takes its events out of the log, and leaves a
// newer inbox on the address alone. (A late expiry of an inbox deleted
// earlier, the other ending that ends nothing, is in the projections'
// tests: the live inbox still takes mail.)
func TestPurgeOfAnEndingThatEndedNothingErasesTheInboxAndKeepsANewerClaim(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	old := inbox("reused@x.test")
	created, err := s.CreateInbox(ctx, old, 0)
	if err != nil {
		t.Fatal(err)
	}
	var refs []mailbox.ContentRef
	for i := range 3 {
		m := events.MailReceived{InboxID: old.InboxID, MessageID: uuid.NewString(), Address: old.Address,
			Content: mailbox.Content{Raw: []byte("Subject: secret " + string(rune('a'+i)) + "\r\n\r\nbody\r\n")}}
		ack, err := deliverOne(ctx, s, m, created.Seq, m.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		sm, err := s.Stream().GetMsg(ctx, ack.Seq)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := events.Decode(sm.Data)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, mailbox.ContentRef{MessageID: m.MessageID, Seq: ack.Seq, Key: p.(*events.MailReceived).Key})
	}
	if _, err := s.Content(ctx, refs[0]); err != nil {
		t.Fatalf("content before the purge: %v", err)
	}
	end := &events.InboxDeleted{InboxID: old.InboxID, Address: old.Address}
	ended, err := s.EndInbox(ctx, old.Address, end, created.Seq)
	if err != nil {
		t.Fatal(err)
	}
	newer := inbox("reused@x.test")
	newer.InboxID = "id-newer"
	claimed, err := s.CreateInbox(ctx, newer, ended.Seq)
	if err != nil {
		t.Fatal(err)
	}
	endMsg, err := s.Stream().GetMsg(ctx, ended.Seq)
	if err != nil {
		t.Fatal(err)
	}

	f := events.Forget{Inboxes: []events.ForgetInbox{{ID: old.InboxID, Address: old.Address, Seq: ended.Seq}}}
	if err := s.Forget(ctx, f, events.ForgetAll, nil); err != nil {
		t.Fatalf("purge: %v", err)
	}
	for _, ref := range refs {
		if _, err := s.Content(ctx, ref); tempmail.KindOf(err) != tempmail.NotFound {
			t.Errorf("message %s after the purge: %v, want it unreadable (not found)", ref.MessageID, err)
		}
	}
	info, err := s.Stream().Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		t.Fatal(err)
	}
	for subject := range info.State.Subjects {
		if strings.Contains(subject, old.InboxID) {
			t.Errorf("the ended inbox's events are still on %s", subject)
		}
	}
	// The address's lifecycle keeps the newer inbox's claim, and the
	// ending itself (as the views may expect it there); the ended inbox's
	// creation is gone.
	last, err := s.Stream().GetLastMsgForSubject(ctx, endMsg.Subject)
	if err != nil || last.Sequence != claimed.Seq {
		t.Fatalf("last event on the address: %+v, %v; want the newer claim at %d", last, err, claimed.Seq)
	}
	if n := info.State.Subjects[endMsg.Subject]; n != 2 {
		t.Errorf("the address's lifecycle holds %d events, want the ending and the newer claim", n)
	}
	if _, err := s.Stream().GetMsg(ctx, created.Seq); err == nil {
		t.Errorf("the ended inbox's creation (%d) is still in the log", created.Seq)
	}
	if _, err := s.EndInbox(ctx, newer.Address, &events.InboxDeleted{InboxID: newer.InboxID, Address: newer.Address}, claimed.Seq); err != nil {
		t.Errorf("the newer inbox can no longer be ended: %v", err)
	}
}

// TestForgettingWhatIsGoneAlreadyIsDone: the views may ask the log to
// forget an event a purge took out before (an inbox's purge and a
// message's deletion forget the same event): that is done, not an error to
// retry, or the partition would stop behind it for good.
func TestForgettingWhatIsGoneAlreadyIsDone(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	created, err := s.CreateInbox(ctx, inbox("gone@x.test"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stream().DeleteMsg(ctx, created.Seq); err != nil {
		t.Fatal(err)
	}
	// Once deleted, and one never written.
	if err := s.Forget(ctx, events.Forget{Seqs: []uint64{created.Seq, created.Seq + 1000}}, events.ForgetAll, nil); err != nil {
		t.Errorf("forgetting events gone already: %v", err)
	}
}

// Forgetting a deleted tenant takes its subject out of the log only as far
// as the views that let it go have applied it: an event stored there since
// (its inbox's removal, as the deletion ends its inboxes) stays, to be
// applied, and is forgotten in its turn.
func TestForgettingATenantKeepsWhatItsSubjectGotPastTheViews(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	created, err := s.AppendTenantEvent(ctx, events.TenantCreated{TenantID: "t1", Name: "t"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	deleted, err := s.EndTenant(ctx, events.TenantDeleted{TenantID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	later, err := s.AppendTenantEvent(ctx, events.TenantInboxRemoved{TenantID: "t1", InboxID: "i1"}, deleted.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Forget(ctx, events.Forget{Tenants: []string{"t1"}}, deleted.Seq, nil); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []uint64{created.Seq, deleted.Seq} {
		if _, err := s.Stream().GetMsg(ctx, seq); err == nil {
			t.Errorf("the tenant's event %d, which the views applied, is still in the log", seq)
		}
	}
	if _, err := s.Stream().GetMsg(ctx, later.Seq); err != nil {
		t.Errorf("the event %d stored after what the views applied left the log: %v", later.Seq, err)
	}
	if err := s.Forget(ctx, events.Forget{Seqs: []uint64{later.Seq}}, later.Seq, nil); err != nil {
		t.Fatal(err)
	}
	if refused, err := s.KeyRefused(ctx, strings.Repeat("k", 64), "t1"); err != nil || !refused {
		t.Errorf("a key of the tenant, its subject forgotten: refused %v, %v", refused, err)
	}
}

// TestADeletedTenantsKeysAreRefusedWhateverItsSubjectGetsAfter: the
// removal of one of its inboxes, stored after the deletion (scheduled at
// the inbox's expiry, or written as the deletion ends it), does not make
// the log accept the tenant's keys again while the views lag; a retry of
// the deletion is taken for the one stored.
func TestADeletedTenantsKeysAreRefusedWhateverItsSubjectGetsAfter(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	hash := strings.Repeat("k", 64)
	if _, err := s.AppendTenantEvent(ctx, events.TenantCreated{TenantID: "t1", Name: "t"}, 0); err != nil {
		t.Fatal(err)
	}
	if refused, err := s.KeyRefused(ctx, hash, "t1"); err != nil || refused {
		t.Fatalf("a live tenant's key: refused %v, %v", refused, err)
	}
	deleted, err := s.EndTenant(ctx, events.TenantDeleted{TenantID: "t1"})
	if err != nil || deleted.Seq == 0 {
		t.Fatalf("EndTenant: %+v, %v", deleted, err)
	}
	if again, err := s.EndTenant(ctx, events.TenantDeleted{TenantID: "t1"}); err != nil || again.Seq != 0 {
		t.Errorf("a retry of the deletion: %+v, %v (want nothing stored again)", again, err)
	}
	if _, err := s.AppendTenantEvent(ctx, events.TenantInboxRemoved{TenantID: "t1", InboxID: "i1"}, deleted.Seq); err != nil {
		t.Fatal(err)
	}
	if refused, err := s.KeyRefused(ctx, hash, "t1"); err != nil || !refused {
		t.Errorf("a deleted tenant's key, a removal after its deletion: refused %v, %v", refused, err)
	}
	if refused, err := s.KeyRefused(ctx, hash, "t2"); err != nil || !refused {
		t.Errorf("a key of a tenant the log does not know: refused %v, %v", refused, err)
	}
}
