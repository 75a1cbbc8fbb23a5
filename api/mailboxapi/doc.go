// Package mailboxapi serves family B, the mailbox API (docs/mailbox-api.md):
// an address on the first domain made with POST /api/create-temp-email/,
// which never expires and whose messages are kept for --retention, and its
// mail read, marked read and deleted by the address's user name and each
// message's file name, under /api/mailstore/. mailboxapi.go has its door
// and routes; mailboxes.go makes and finds mailboxes; messages.go lists,
// reads, marks and deletes their messages, in the shapes of dto.go.
// contract.go is its part of the OpenAPI document, and schemas.go what the
// document says of its shapes.
package mailboxapi
