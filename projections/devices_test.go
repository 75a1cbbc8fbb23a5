package projections

import (
	"fmt"
	"testing"
	"time"

	"tempmail"
	"tempmail/events"
	"tempmail/eventually"
)

// A tenant's devices as the views hold them: listed in the order they
// were made, at most MaxTenantDevices (one beyond, which the command
// refuses first, is moot, and its secret leaves the log); a deleted one
// leaves the views and its creation the log, which makes room for
// another.
func TestDevicesAreCappedAndForgotten(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	ctx := ctxT(t)
	const tenant = "tenant-devices"
	created, err := e.store.AppendTenantEvent(ctx, events.TenantCreated{TenantID: tenant, Name: "d"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := created.Seq
	var acks []events.Ack
	create := func(i int) {
		t.Helper()
		ack, err := e.store.CreateDevice(ctx, events.DeviceCreated{TenantID: tenant, DeviceID: fmt.Sprint("device-", i),
			Name: fmt.Sprint("phone ", i), Secret: []byte{byte(i), 1, 2}, CreatedAt: time.Unix(1700000000, 0).UTC()}, last)
		if err != nil {
			t.Fatal(err)
		}
		last = ack.Seq
		acks = append(acks, ack)
	}
	for i := range MaxTenantDevices + 1 {
		create(i)
	}
	if _, err := e.store.CreateDevice(ctx, events.DeviceCreated{TenantID: tenant, DeviceID: "stale"}, created.Seq); tempmail.KindOf(err) != tempmail.Conflict {
		t.Errorf("a creation that did not see the others: %v, want a conflict", err)
	}
	if err := e.views.WaitApplied(ctx, acks[len(acks)-1]); err != nil {
		t.Fatal(err)
	}
	list, err := e.views.TenantDevices(ctx, tenant, true)
	if err != nil || len(list) != MaxTenantDevices || list[0] != (DeviceItem{ID: "device-0", Name: "phone 0"}) ||
		list[MaxTenantDevices-1].ID != fmt.Sprint("device-", MaxTenantDevices-1) {
		t.Fatalf("%d devices listed (%v), want the first %d in order", len(list), err, MaxTenantDevices)
	}
	if d, err := e.views.Device(ctx, "device-7"); err != nil || d.TenantID != tenant || string(d.Secret) != "\x07\x01\x02" {
		t.Errorf("a device: %+v, %v", d, err)
	}
	beyond := fmt.Sprint("device-", MaxTenantDevices)
	if _, err := e.views.Device(ctx, beyond); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the device beyond the cap: %v, want not found", err)
	}
	gone := func(what string, seq uint64) {
		t.Helper()
		eventually.Within(t, 20*time.Second, what+" gone from the log", func() error {
			if _, err := e.store.Stream().GetMsg(ctxT(t), seq); err == nil {
				return fmt.Errorf("the log still holds %d", seq)
			}
			return nil
		})
	}
	gone("the creation beyond the cap", acks[MaxTenantDevices].Seq)

	deleted, err := e.store.DeleteDevice(ctx, events.DeviceDeleted{TenantID: tenant, DeviceID: "device-0"})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := e.store.DeleteDevice(ctx, events.DeviceDeleted{TenantID: tenant, DeviceID: "device-0"}); err != nil || again.Seq != deleted.Seq {
		t.Errorf("a retry of the deletion: %+v, %v; want the one stored (%d)", again, err, deleted.Seq)
	}
	if err := e.views.WaitApplied(ctx, deleted); err != nil {
		t.Fatal(err)
	}
	if _, err := e.views.Device(ctx, "device-0"); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the deleted device: %v, want not found", err)
	}
	gone("the deleted device's creation", acks[0].Seq)
	last = deleted.Seq
	create(MaxTenantDevices + 1)
	if err := e.views.WaitApplied(ctx, acks[len(acks)-1]); err != nil {
		t.Fatal(err)
	}
	if list, err := e.views.TenantDevices(ctx, tenant, true); err != nil || len(list) != MaxTenantDevices ||
		list[0].ID != "device-1" || list[MaxTenantDevices-1].ID != fmt.Sprint("device-", MaxTenantDevices+1) {
		t.Errorf("after one deleted and one made: %d devices (%v)", len(list), err)
	}
	// The deletion, moot once a later event of the tenant is applied,
	// leaves the log too.
	gone("the deletion", deleted.Seq)
}
