package command

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/events"
	"tempmail/projections"
)

// A tenant's virtual security devices (the Mailosaur family's devices):
// events of the tenant's aggregate (events/devices.go). A creation is
// claimed as a private domain is (domainClaim): checked against the
// tenant's devices as the views hold them once they have applied every
// event of its subject, and stored expecting that subject's last event,
// so that of racing creations at projections.MaxTenantDevices none
// passes it.

// DeviceSpec is a device to make; checked already.
type DeviceSpec struct {
	Name   string
	Secret []byte // the shared secret, decoded from its base32
}

var errDeviceCap = tempmail.Errorf(tempmail.Forbidden, "the tenant has %d devices, the most it may have: delete one first",
	projections.MaxTenantDevices)

// CreateDevice records a device of a tenant and returns it as the views
// now show it. A tenant that does not exist, or was deleted meanwhile, is
// NotFound; one with projections.MaxTenantDevices devices, Forbidden.
func (c *Commands) CreateDevice(ctx context.Context, tenantID string, spec DeviceSpec) (*projections.Device, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	release, err := c.Disk.Reserve(newThingBytes)
	if err != nil {
		return nil, err
	}
	defer release()
	// Racing claims of one tenant's count, in this process, take turns
	// (Turns): the log still decides between processes.
	turn, err := c.Turns.take(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	defer turn()
	ev := events.DeviceCreated{TenantID: tenantID, DeviceID: uuid.NewString(), Name: spec.Name, Secret: spec.Secret,
		CreatedAt: time.Now().UTC()}
	err = again(ctx, 40, func(int) (bool, error) {
		tn, last, err := c.tenantNow(ctx, tenantID)
		if err != nil || tn == nil {
			return false, err
		}
		list, err := c.Views.TenantDevices(ctx, tenantID, true)
		if err != nil {
			return false, err
		}
		if len(list) >= projections.MaxTenantDevices {
			return false, errDeviceCap
		}
		ack, err := c.Store.CreateDevice(ctx, ev, last)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // the tenant changed meanwhile: count again
		}
		return true, c.applied(ctx, ack, err)
	})
	if err != nil {
		return nil, err
	}
	d, err := c.Views.Device(ctx, ev.DeviceID)
	if tempmail.KindOf(err) == tempmail.NotFound {
		// The views took no device: its tenant was deleted, or others
		// took the last places first.
		if _, terr := c.Views.Tenant(ctx, tenantID); tempmail.KindOf(terr) == tempmail.NotFound {
			return nil, terr
		}
		return nil, errDeviceCap
	}
	return d, err
}

// DeleteDevice ends a device, and waits until the views no longer show
// it: its secret is gone from them, and its creation leaves the log.
func (c *Commands) DeleteDevice(ctx context.Context, d *projections.Device) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ack, err := c.Store.DeleteDevice(ctx, events.DeviceDeleted{TenantID: d.TenantID, DeviceID: d.ID})
	return c.applied(ctx, ack, err)
}
