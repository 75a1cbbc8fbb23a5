// Package wire holds the JSON shapes that cross the service's edge in
// more than one place, so that each has one definition, and how the model
// (package mailbox) fills each: the timestamp every answer and webhook
// carries (Time); family C's inboxes, messages, codes and links
// (token.go: SummaryOf, MessageOf, LinksOf, CodeOf, FoundLinkOf), which
// the service writes and the Go client and the MCP tools read; what a
// message's checks concluded (Auth, AuthOf), which every family's message
// detail shows; and family A's email summary, which family A lists and
// outbound message.received webhooks carry (EmailSummaryA, SummaryAOf).
// It needs nothing but the standard library and the model's plain values,
// as the Go client does. Shapes one family alone writes stay with it
// (api's families, the webhook envelope).
package wire
