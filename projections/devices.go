package projections

import (
	"context"
	"slices"

	"tempmail"
	"tempmail/events"
)

// A tenant's virtual security devices, as the views hold them (applied
// from DeviceCreated and DeviceDeleted, events of the tenant's subject, by
// the sys partition's worker):
//
//	dv.<deviceID>   a device: its tenant, its name and its shared secret
//	td.<tenantID>   a tenant's devices, oldest first, without their secrets: at most MaxTenantDevices
//
// The list is what a creation's claim is checked against
// (command.Commands.CreateDevice reads it once the views hold every event
// of the tenant's subject), and what the views refuse a device beyond the
// cap by. Both are written before the tenant's entry (Rank), whose sequence
// says the event is applied; each is checked on its own when a batch
// written in part is applied again. A deleted device leaves the views,
// and its creation, secret and all, the log; a deleted tenant's devices
// leave the views with it (dropDevices), and the log with its subject.

// MaxTenantDevices caps a tenant's devices, claimed one at a time (each
// creation expects the tenant's last event): each is in its tenant's one
// list.
const MaxTenantDevices = 100

func deviceKey(id string) string            { return "dv." + id }
func tenantDevicesKey(tenant string) string { return "td." + tenant }

// deviceCreated lists a device and writes its entry; one of a tenant
// deleted meanwhile, or beyond the cap, is moot (its secret leaves the
// log).
func (t *tx) deviceCreated(ev *events.DeviceCreated) error {
	_, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	l, ls, err := load[DeviceList](t, tenantDevicesKey(ev.TenantID))
	if err != nil {
		return err
	}
	listed := ls.Live() && slices.ContainsFunc(l.Items, func(x DeviceItem) bool { return x.ID == ev.DeviceID })
	switch {
	case t.Applied(ls) && !listed:
		// Applied again after a batch written in part: the list, written
		// already, did not take it (beyond the cap), or it was deleted
		// since, in the same batch.
		t.Moot()
	case !t.Applied(ls) && ls.Live() && len(l.Items) >= MaxTenantDevices:
		t.Moot() // beyond the cap (the command refuses it first)
	default:
		d, ds, err := load[Device](t, deviceKey(ev.DeviceID))
		if err != nil {
			return err
		}
		if !t.Applied(ds) {
			*d = Device{Meta: d.Meta, ID: ev.DeviceID, TenantID: ev.TenantID, Name: ev.Name, Secret: ev.Secret,
				CreatedAt: ev.CreatedAt}
			t.Save(ds)
		}
		if !t.Applied(ls) {
			if !ls.Live() {
				l.Items = nil
			}
			l.Items = append(l.Items, DeviceItem{ID: ev.DeviceID, Name: ev.Name})
			t.Save(ls)
		}
	}
	t.Save(ts)
	return nil
}

// deviceDeleted takes a device out of the views; its creation leaves the
// log, and the deletion too once a later event of the tenant comes.
func (t *tx) deviceDeleted(ev *events.DeviceDeleted) error {
	tn, ts, ok, err := t.liveTenant(ev.TenantID)
	if !ok {
		return err
	}
	d, ds, err := load[Device](t, deviceKey(ev.DeviceID))
	if err != nil {
		return err
	}
	if ds.Live() && !t.Applied(ds) && d.TenantID == ev.TenantID {
		t.Forget.Seqs = append(t.Forget.Seqs, d.Seq) // its creation, and its secret with it
		t.Remove(ds)
	}
	if err := t.unlistDevice(ev.TenantID, ev.DeviceID); err != nil {
		return err
	}
	t.mootLater(tn)
	t.Save(ts)
	return nil
}

// unlistDevice takes a device out of its tenant's list, unless the list
// reflects this event already.
func (t *tx) unlistDevice(tenant, id string) error {
	l, ls, err := load[DeviceList](t, tenantDevicesKey(tenant))
	if err != nil || !ls.Live() || t.Applied(ls) {
		return err
	}
	i := slices.IndexFunc(l.Items, func(x DeviceItem) bool { return x.ID == id })
	if i < 0 {
		return nil
	}
	l.Items = slices.Delete(l.Items, i, i+1)
	if len(l.Items) == 0 {
		t.Remove(ls)
	} else {
		t.Save(ls)
	}
	return nil
}

// dropDevices removes a deleted tenant's devices and their list from the
// views; their events leave the log with the tenant's subject.
func (t *tx) dropDevices(tenant string) error {
	l, ls, err := load[DeviceList](t, tenantDevicesKey(tenant))
	if err != nil || !ls.Live() {
		return err
	}
	for _, it := range l.Items {
		_, ds, err := load[Device](t, deviceKey(it.ID))
		if err != nil {
			return err
		}
		t.Remove(ds)
	}
	t.Remove(ls)
	return nil
}

// Device returns a live device by id, whatever its tenant: the caller
// checks it is the asker's.
func (r *Reader) Device(ctx context.Context, id string) (*Device, error) {
	var d Device
	if err := r.get(ctx, deviceKey(id), &d, "device"); err != nil {
		return nil, err
	}
	return &d, nil
}

// TenantDevices returns a tenant's devices, oldest first; latest reads
// them past this process's cache (what a claim is checked against).
func (r *Reader) TenantDevices(ctx context.Context, tenantID string, latest bool) ([]DeviceItem, error) {
	var l DeviceList
	err := r.getAt(ctx, tenantDevicesKey(tenantID), &l, "devices", latest)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, nil
	}
	return l.Items, err
}
