package command_test

import (
	"context"
	"fmt"
	"testing"

	"tempmail"
	"tempmail/command"
	"tempmail/projections"
)

// Of device creations racing at a tenant's cap, exactly the cap are made
// and the others refused (Forbidden); a deletion makes room for one more;
// a deleted tenant's devices are gone, and it can make none.
func TestRacingDevicesAtTheCapMakeTheCap(t *testing.T) {
	t.Parallel()
	svc := start(t)
	ctx := t.Context()
	c := svc.Commands
	tn, err := c.CreateTenant(ctx, command.TenantSpec{Name: "devices"})
	if err != nil {
		t.Fatal(err)
	}
	spec := func(i int) command.DeviceSpec {
		return command.DeviceSpec{Name: fmt.Sprint("device ", i), Secret: []byte{byte(i)}}
	}
	const left = 5
	var first *projections.Device
	for i := range projections.MaxTenantDevices - left {
		d, err := c.CreateDevice(ctx, tn.ID, spec(i))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = d
		}
	}
	made, refused := 0, 0
	for _, err := range race(4*left, func(ctx context.Context, i int) error {
		_, err := c.CreateDevice(ctx, tn.ID, spec(100+i))
		return err
	}) {
		switch {
		case err == nil:
			made++
		case tempmail.KindOf(err) == tempmail.Forbidden:
			refused++
		default:
			t.Errorf("a racing creation: %v", err)
		}
	}
	list, err := svc.Views.TenantDevices(ctx, tn.ID, true)
	if made != left || refused != 3*left || err != nil || len(list) != projections.MaxTenantDevices {
		t.Errorf("%d racing at %d places left: %d made, %d refused, %d listed (%v)", 4*left, left, made, refused, len(list), err)
	}
	if err := c.DeleteDevice(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Views.Device(ctx, first.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a deleted device, once DeleteDevice returned: %v, want not found", err)
	}
	if _, err := c.CreateDevice(ctx, tn.ID, spec(1000)); err != nil {
		t.Errorf("a device in the deleted one's place: %v", err)
	}

	if err := c.DeleteTenant(ctx, tn.ID); err != nil {
		t.Fatal(err)
	}
	if list, err := svc.Views.TenantDevices(ctx, tn.ID, true); err != nil || len(list) != 0 {
		t.Errorf("a deleted tenant's devices: %d, %v", len(list), err)
	}
	if _, err := c.CreateDevice(ctx, tn.ID, spec(1001)); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a device of a deleted tenant: %v, want not found", err)
	}
}
