// Package mailosaur serves the Mailosaur API (docs/compatible.md "Coming from
// Mailosaur"), a compatible family registered with the server as a
// family.Door: what the `mailosaur` SDK and `cypress-mailosaur` call, under
// /compat/mailosaur/. A Mailosaur server is a private catch-all domain of
// the key's tenant, <id>.<first --domains domain> with an 8-character id,
// its name the domain's label (servers.go); its messages are the mail of
// the inboxes its first mails made there, searched, read and deleted in
// messages.go, shaped as the SDK's models in dto.go. The SDK authenticates
// with HTTP Basic, the key as the user name. contract.go is its part of
// the OpenAPI document, and schemas.go what the document says of its
// shapes.
package mailosaur
