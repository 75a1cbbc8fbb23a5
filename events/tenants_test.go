package events_test

import (
	"encoding/json"
	"testing"
	"time"

	"tempmail"
	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
)

// An inbox of no tenant is written as version 1, which binaries from
// before tenants read; one of a tenant as version 2; one with a password
// (a mail.tm account) as version 3, which binaries of version 2 refuse;
// all read back whole.
func TestInboxCreatedIsVersion1WithoutATenantAnd2WithOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tenant, hash string
		want         int
	}{{"", "", 1}, {"t-1", "", 2}, {"", "$2a$10$x", 3}, {"t-1", "$2a$10$x", 3}} {
		ev := inbox("v@x.test")
		ev.TenantID = tc.tenant
		ev.PasswordHash = tc.hash
		b, err := events.Encode(ev, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			V    int             `json:"v"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil || env.V != tc.want {
			t.Errorf("tenant %q: written as version %d (%v), want %d", tc.tenant, env.V, err, tc.want)
		}
		p, _, err := events.Decode(b)
		if got, ok := p.(*events.InboxCreated); err != nil || !ok || got.TenantID != tc.tenant || got.PasswordHash != tc.hash {
			t.Errorf("tenant %q: read back %#v, %v", tc.tenant, p, err)
		}
	}
}

// Of two changes of one tenant made from the same knowledge, the stream
// takes one; the other is a conflict.
func TestTenantEventsExpectTheTenantsLastSequence(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	created, err := s.AppendTenantEvent(ctx, events.TenantCreated{TenantID: "t1", Name: "one", CreatedAt: time.Now()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if created.Partition != events.SysPartition {
		t.Errorf("a tenant's events are in partition %q, want %q", created.Partition, events.SysPartition)
	}
	if _, err := s.AppendTenantEvent(ctx, events.TenantCreated{TenantID: "t1", Name: "again"}, 0); tempmail.KindOf(err) != tempmail.Conflict {
		t.Errorf("a second creation of one tenant: %v, want a conflict", err)
	}
	if _, err := s.AppendTenantEvent(ctx, events.KeyCreated{KeyID: "k", TenantID: "t1", Hash: "h"}, created.Seq); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendTenantEvent(ctx, events.TenantDeleted{TenantID: "t1"}, created.Seq); tempmail.KindOf(err) != tempmail.Conflict {
		t.Errorf("a deletion that did not see the key made: %v, want a conflict", err)
	}
}
