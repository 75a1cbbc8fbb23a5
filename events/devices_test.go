package events_test

import (
	"bytes"
	"testing"
	"time"

	"tempmail"
	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
)

// A tenant's devices are events of its subject: a creation expects the
// tenant's last event (its claim of a place under the cap), a retry of
// one is the one stored (its id is the device's), and they leave the log
// with the tenant's subject, secrets and all.
func TestDevicesAreEventsOfTheirTenant(t *testing.T) {
	t.Parallel()
	s := eventstest.OpenStore(t, natstest.StartNode(t, t.TempDir()))
	ctx := ctxT(t)
	created, err := s.AppendTenantEvent(ctx, events.TenantCreated{TenantID: "t1", Name: "t"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ev := events.DeviceCreated{TenantID: "t1", DeviceID: "d1", Name: "phone", Secret: []byte{0, 1, 0xff},
		CreatedAt: time.Unix(1700000000, 0).UTC()}
	device, err := s.CreateDevice(ctx, ev, created.Seq)
	if err != nil || device.Partition != events.SysPartition {
		t.Fatalf("CreateDevice: %+v, %v", device, err)
	}
	// A retry (the command's, once it has read the tenant again) is the
	// creation stored, not a second one.
	if again, err := s.CreateDevice(ctx, ev, device.Seq); err != nil || again.Seq != device.Seq || !again.Duplicate {
		t.Errorf("a retry of the creation: %+v, %v; want the one stored (%d)", again, err, device.Seq)
	}
	other := ev
	other.DeviceID = "d2"
	if _, err := s.CreateDevice(ctx, other, created.Seq); tempmail.KindOf(err) != tempmail.Conflict {
		t.Errorf("a creation that did not see the first: %v, want a conflict", err)
	}
	if last, err := s.TenantLast(ctx, "t1"); err != nil || last != device.Seq {
		t.Errorf("the tenant's last event: %d, %v; want the device's %d", last, err, device.Seq)
	}
	m, err := s.Stream().GetMsg(ctx, device.Seq)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := events.Decode(m.Data)
	if got, ok := p.(*events.DeviceCreated); err != nil || !ok || got.DeviceID != "d1" || got.Name != "phone" ||
		!bytes.Equal(got.Secret, ev.Secret) || events.TenantOf(got) != "t1" {
		t.Errorf("read back: %#v, %v", p, err)
	}
	deleted, err := s.DeleteDevice(ctx, events.DeviceDeleted{TenantID: "t1", DeviceID: "d1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Forget(ctx, events.Forget{Tenants: []string{"t1"}}, deleted.Seq, nil); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []uint64{device.Seq, deleted.Seq} {
		if _, err := s.Stream().GetMsg(ctx, seq); err == nil {
			t.Errorf("the deleted tenant's device event %d is still in the log", seq)
		}
	}
}
