package projections

import (
	"testing"
	"time"

	"tempmail"
	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/projections/engine"
	"tempmail/projections/view"
)

func TestViewsFollowTheLog(t *testing.T) {
	t.Parallel()
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
	if m, _, err := e.views.Message(ctx, big.Latest()); err != nil || m.Subject != "big 68" || m.Text != "body of big 68" {
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
	// one.test stays, two.test (deactivated) is gone.
	doms, err := e.views.PublicDomains(ctx, false)
	if err != nil || len(doms) != 1 || doms[0].Name != "one.test" || doms[0].ID != 1 {
		t.Errorf("domains: %+v, %v", doms, err)
	}
	if _, err := e.views.DomainByName(ctx, "two.test"); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a deactivated domain: %v, want not found", err)
	}
}

func TestViewsSurviveRestart(t *testing.T) {
	t.Parallel()
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
	// 6 inboxes, the one live domain's event, 2 subscriptions, and of
	// tenants (populateTenants) the live one's creation, change, key,
	// device and inbox claim, and the last removal of an inbox (the
	// subject's last event, which claims expect). What was deleted, the
	// ended inboxes, the deactivated domain, the revoked key, the deleted
	// device, the deleted tenant, and the claims of what is gone, left it.
	if n := len(storedEvents(t, e2.store)); n != 89 {
		t.Errorf("after restart the stream has %d events, want the 89 of what is live", n)
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
	t.Parallel()
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

// Every key that changes what an inbox's readers see wakes the inbox's
// topic: the watcher wakes the topic of each entry it sees written
// (view.EntryTopic), and an inbox's topic is its entry's, so a renamed key
// prefix cannot silently stop event streams; no other entry wakes it.
func TestWatchedKeysWakeTheirTopics(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{
		inboxKey("id-1"):         true,
		pageKey("id-1", 4):       false,
		addressKey("a@b.c"):      false,
		tokenKey("TOKEN"):        false,
		webhookKey("hook-1"):     false,
		engine.PendingKey("p3"):  false,
		view.CheckpointKey("p3"): false,
		tagKey("0123456789ab"):   false,
	} {
		if wakes := view.EntryTopic(key) == InboxTopic("id-1"); wakes != want {
			t.Errorf("a write of %s wakes inbox id-1's topic: %v, want %v", key, wakes, want)
		}
	}
	if InboxTopic("id-1") == PartitionTopic("id-1") || InboxTopic("id-1") == InboxTopic("id-2") {
		t.Error("an inbox's topic is another's, or a partition's")
	}
}
