// Package tokenapi serves family C, the token API (docs/token-api.md):
// inboxes made with POST /inboxes/ and reached by their token alone, their
// messages (read, marked, deleted, their raw source, attachments and HTML
// body), their outbound webhook subscriptions, and the reads that wait for
// mail: the latest message, a one-time code, a link, and the latest by
// address. tokenapi.go has its door and routes; inboxes.go, messages.go,
// content.go and webhooks.go the resources; held.go the held reads;
// streams.go its event stream; dto.go its shapes, which package wire
// declares once for the client and MCP too. contract.go is its part of
// the OpenAPI document, and schemas.go what the document says of its
// shapes.
package tokenapi
