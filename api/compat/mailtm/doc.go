// Package mailtm serves the mail.tm API under /compat/mailtm/ (docs/compatible.md
// "Coming from Mailosaur, MailSlurp or mail.tm"), a compatible family over
// the same inboxes as every other, for mail.tm's clients pointed there by
// their base URL. It registers with the server as a family.Door; mailtm.go
// has its routes, who its requests come from and its errors. An account is
// an inbox (family C's names, domains and lifetime) with a password, stored
// as a slow salted hash (accounts.go); its messages are the inbox's
// (messages.go), and their changes are pushed as mail.tm's Mercure hub
// pushes them (events.go); the shapes are in dto.go.
//
// The token POST /token gives is the inbox's own token, opaque to clients
// as mail.tm's JWT is: every node finds it in the views (no secret to share
// between nodes, none to rotate), and it ends with its inbox, which a
// signed token would outlive. A tenant's key (Bearer tm_...) and the API
// token work here too: they make accounts for their tenant and reach its
// accounts and messages by id, as on the other families; another tenant's
// are not found.
//
// Answers are JSON-LD (application/ld+json, hydra collections), the
// original's default, or plain JSON (objects without @-members, collections
// as arrays) for a client whose Accept asks for application/json first.
//
// contract.go is its part of the OpenAPI document, and schemas.go what the
// document says of its shapes.
package mailtm
