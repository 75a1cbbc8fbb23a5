package entry

import (
	"slices"

	"tempmail/projections/view"
)

// Domain is one live domain, configured or added at runtime.
type Domain struct {
	view.Meta
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Active   bool   `json:"is_active"` // always, for a domain the views hold
	API      bool   `json:"api,omitempty"`
	TenantID string `json:"tenant_id,omitempty"`
	CatchAll bool   `json:"catch_all,omitempty"`
	Label    string `json:"label,omitempty"`  // its tenant's name for it (events.DomainAdded)
	Server   bool   `json:"server,omitempty"` // a Mailosaur server
	// Event is the DomainAdded that made it as it is: the one before it
	// leaves the log when a newer one changes it.
	Event uint64 `json:"event,omitempty"`
	// ClaimSeq is its tenant's claim of it (TenantDomainAdded), which
	// leaves the log with it.
	ClaimSeq uint64 `json:"claim_seq,omitempty"`
	// Legacy are its events on the one subject of every domain that logs
	// before format 4 kept (events.ForgetDomain).
	Legacy []uint64 `json:"legacy,omitempty"`
}

// DomainList is a list of domains, in id order.
type DomainList struct {
	view.Meta
	Items []Domain `json:"items"`
}

// DomainIDs are the ids of a tenant's private domains, in order: a
// domain's change writes its own entries, never the list.
type DomainIDs struct {
	view.Meta
	IDs []int `json:"ids"`
}

func (l *DomainIDs) Clone() view.Record { c := *l; c.IDs = slices.Clone(l.IDs); return &c }

func (d *Domain) Clone() view.Record     { c := *d; c.Legacy = slices.Clone(d.Legacy); return &c }
func (l *DomainList) Clone() view.Record { c := *l; c.Items = slices.Clone(l.Items); return &c }
