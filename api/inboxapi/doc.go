// Package inboxapi serves family A, the inbox API (docs/inbox-api.md):
// domains, inboxes by id with a lifetime (inboxes.go), their emails
// (messages.go), raw sources and attachments (content.go), event streams
// (streams.go), outbound webhook subscriptions (webhooks.go), and what a
// tenant's key sees of its tenant (usage.go), in the shapes of dto.go.
// inboxapi.go has its door and routes; contract.go its part of the
// OpenAPI document, and schemas.go what the document says of its shapes.
package inboxapi
