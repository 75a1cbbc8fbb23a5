package entry

import (
	"slices"

	"tempmail/projections/view"
)

// TenantList says where a tenant's list of inboxes begins and ends.
type TenantList struct {
	view.Meta
	Newest int64 `json:"newest"` // the page new inboxes go to; 0: the list is empty
	Oldest int64 `json:"oldest"`
	Next   int64 `json:"next"` // the number of the next new page
}

// TenantPage is a page of a tenant's list of inboxes.
type TenantPage struct {
	view.Meta
	Items []TenantInbox `json:"items"` // newest first
	Older int64         `json:"older,omitempty"`
	Newer int64         `json:"newer,omitempty"`
}

// TenantMember says which page of its tenant's list holds an inbox, and
// where its claim is in the log.
type TenantMember struct {
	view.Meta
	Page     int64  `json:"page"`
	ClaimSeq uint64 `json:"claim_seq"`
}

func (l *TenantList) Clone() view.Record   { c := *l; return &c }
func (p *TenantPage) Clone() view.Record   { c := *p; c.Items = slices.Clone(p.Items); return &c }
func (m *TenantMember) Clone() view.Record { c := *m; return &c }

// TenantUsage is one partition's share of a tenant's mail and
// subscriptions.
type TenantUsage struct {
	view.Meta
	// Day is the UTC day (2006-01-02) that Messages counts.
	Day      string `json:"day"`
	Messages int64  `json:"messages"`
	Bytes    int64  `json:"bytes"`
	// Webhooks counts the subscriptions to its inboxes.
	Webhooks  int64  `json:"webhooks,omitempty"`
	Released  Claims `json:"released,omitzero"`
	Unclaimed Claims `json:"unclaimed,omitzero"`
}

func (u *TenantUsage) Clone() view.Record { c := *u; return &c }

// Hold adds messages received on day (negative: gone) and size bytes to
// what the partition's inboxes hold.
func (u *TenantUsage) Hold(day string, messages, size int64) {
	switch {
	case messages > 0 && day > u.Day:
		u.Day, u.Messages = day, messages
	case day == u.Day:
		u.Messages = max(0, u.Messages+messages)
	}
	if u.Messages == 0 {
		u.Day = ""
	}
	u.Bytes = max(0, u.Bytes+size)
}
