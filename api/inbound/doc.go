// Package inbound serves the inbound webhook (docs/webhooks.md "The inbound
// webhook", POST /api/webhook/email/, family A's path and errors): a
// message handed over HTTP by another MTA or a provider. Its request is
// read in read.go, a raw message or JSON that one is built from, and the
// message delivered through command's one path, as SMTP's are. Its part
// of the OpenAPI document is contract.go's, and schemas.go's.
package inbound
