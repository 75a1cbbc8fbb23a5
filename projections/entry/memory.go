package entry

import "tempmail/projections/view"

// Size estimates what a record takes in memory, decoded and kept (the
// structs, their strings, and the map and list entries that hold them;
// measured with heap profiles): list pages grow with their summaries, the
// rest are about the same.
func Size(rec view.Record) int {
	switch r := rec.(type) {
	case *Page:
		return 384 + 256*len(r.Items)
	case *Inbox:
		return 1024 + 256*len(r.Head) + 64*len(r.Pages) + 96*len(r.Marks) + 96*len(r.Webhooks)
	case *TenantPage:
		return 384 + 256*len(r.Items)
	case *DomainList:
		return 384 + 256*len(r.Items)
	case *DeviceList:
		return 384 + 128*len(r.Items)
	}
	return 768
}

// Hot says which entries a worker keeps between batches (view.KV): the
// small, hot ones (inboxes, addresses, the domain list, list pages). It is
// what the partition's busy inboxes need, and every partition has its own.
func Hot(rec view.Record) bool {
	switch rec.(type) {
	case *Inbox, *Address, *Domain, *DomainList, *DomainIDs, *Page, *WebhookList, *TagRef,
		*Tenant, *TenantUsage, *TenantList, *TenantPage:
		return true
	}
	return false
}
