package events_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
)

// TestALogOfFormat3IsBroughtTo4: a log written before format 4 counted a
// tenant's expiring inbox out by the time alone. Opened by this build, the
// claim of one such inbox that ended leaves the log, a live one's removal
// is scheduled at its expiry, and the stream says format 4; opened again,
// nothing more is done.
func TestALogOfFormat3IsBroughtTo4(t *testing.T) {
	t.Parallel()
	node := natstest.StartNode(t, t.TempDir())
	s := eventstest.OpenStore(t, node)
	ctx := ctxT(t)
	seq, err := s.AppendTenantEvent(ctx, events.TenantCreated{TenantID: "t1", Name: "t", CreatedAt: time.Now().UTC()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := seq.Seq
	claim := func(addr string, expires time.Time) (events.InboxCreated, uint64, uint64) {
		t.Helper()
		ev := events.InboxCreated{InboxID: uuid.NewString(), Address: addr, Token: uuid.NewString(),
			DomainID: 1, CreatedAt: time.Now().UTC(), ExpiresAt: expires, TenantID: "t1"}
		// As format 3 recorded them: the claim and the inbox, no removal.
		c, err := s.AppendTenantEvent(ctx, events.TenantInboxAdded{TenantID: "t1", InboxID: ev.InboxID, Address: addr,
			CreatedAt: ev.CreatedAt, ExpiresAt: expires}, last)
		if err != nil {
			t.Fatal(err)
		}
		last = c.Seq
		a, err := s.CreateInbox(ctx, events.InboxCreated{InboxID: ev.InboxID, Address: addr, Token: ev.Token,
			DomainID: 1, CreatedAt: ev.CreatedAt, TenantID: "t1"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return ev, c.Seq, a.Seq
	}
	live, liveClaim, _ := claim("live@one.test", time.Now().Add(time.Hour))
	ended, endedClaim, endedAt := claim("ended@one.test", time.Now().Add(time.Hour))
	if _, err := s.EndInbox(ctx, ended.Address, &events.InboxDeleted{InboxID: ended.InboxID, Address: ended.Address}, endedAt); err != nil {
		t.Fatal(err)
	}
	setFormat(t, node.JS, "3")
	s.Close()

	again := eventstest.OpenStore(t, node)
	if f := again.Stream().CachedInfo().Config.Metadata["tempmail_format"]; f != "4" {
		t.Errorf("format after opening: %q, want 4", f)
	}
	if _, err := again.Stream().GetMsg(ctx, endedClaim); err == nil {
		t.Error("the claim of an inbox that ended is still in the log")
	}
	if _, err := again.Stream().GetMsg(ctx, liveClaim); err != nil {
		t.Errorf("the claim of a live inbox: %v", err)
	}
	m, err := again.Stream().GetLastMsgForSubject(ctx, "sched.sys.tenant.t1."+live.InboxID)
	if err != nil {
		t.Fatalf("the live inbox's removal is not scheduled: %v", err)
	}
	if m.Header.Get("Nats-Schedule-Target") != "ev.sys.tenant.t1" {
		t.Errorf("its removal targets %q", m.Header.Get("Nats-Schedule-Target"))
	}
	lastSeq, _ := again.LastSeq(ctx)
	again.Close()
	third := eventstest.OpenStore(t, node)
	if after, _ := third.LastSeq(ctx); after != lastSeq {
		t.Errorf("opened again, the store wrote %d messages more", after-lastSeq)
	}
}

// setFormat records format f in the stream's metadata, as a build of that
// format left it.
func setFormat(t *testing.T, js jetstream.JetStream, f string) {
	t.Helper()
	st, err := js.Stream(ctxT(t), events.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	cfg.Metadata["tempmail_format"] = f
	if _, err := js.UpdateStream(ctxT(t), cfg); err != nil {
		t.Fatal(err)
	}
}
