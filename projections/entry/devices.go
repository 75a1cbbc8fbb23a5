package entry

import (
	"slices"
	"time"

	"tempmail/projections/view"
)

// Device is one virtual security device of a tenant, with the shared
// secret whose codes the API computes. Its Seq is its DeviceCreated's,
// which leaves the log when it is deleted.
type Device struct {
	view.Meta
	ID        string    `json:"id"`
	TenantID  string    `json:"tenant_id"`
	Name      string    `json:"name"`
	Secret    []byte    `json:"secret"`
	CreatedAt time.Time `json:"created_at"`
}

// DeviceList is a tenant's devices, oldest first, without their secrets:
// what a list of them shows, in one get.
type DeviceList struct {
	view.Meta
	Items []DeviceItem `json:"items"`
}

// DeviceItem is a device as its tenant's list shows it.
type DeviceItem struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func (d *Device) Clone() view.Record {
	c := *d
	c.Secret = slices.Clone(d.Secret)
	return &c
}
func (l *DeviceList) Clone() view.Record { c := *l; c.Items = slices.Clone(l.Items); return &c }
