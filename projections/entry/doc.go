// Package entry is tempmail's view entries, as the views bucket stores
// them: an inbox with its open page and recent marks, a closed list page,
// an address, a token, a tag, a message of format 2, a subscription and
// their lists (inbox.go); the domains (domains.go); a tenant, its keys and
// what its claims count (tenants.go); a tenant's list of inboxes and its
// usage in a partition (tenantlist.go); a tenant's virtual security
// devices and their list (devices.go). Each embeds view.Meta and copies
// itself (Clone).
//
// codec.go is their stored form: an inbox and a closed page, which every
// message writes and most reads read, in a compact binary form; the rest,
// and every tombstone, as JSON. A change to a type here is a change of
// what the bucket holds: views written before must still read. memory.go
// estimates what an entry takes in memory, and which a worker keeps.
//
// What the entries mean, and what changes them, is package projections'.
package entry
