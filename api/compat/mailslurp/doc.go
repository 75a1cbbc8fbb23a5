// Package mailslurp serves the MailSlurp API (docs/compatible.md "Coming from
// Mailosaur, MailSlurp or mail.tm"), a compatible family registered with
// the server as a family.Door: what the `mailslurp-client` SDK calls for
// the part of MailSlurp a test suite uses, under /compat/mailslurp/, which
// is the SDK's basePath. Its inboxes are made (inboxes.go), its mail waited
// for (waits.go), listed and read (emails.go), paged and looked up
// (lists.go, in Spring's page shape: pages.go), its codes and links found
// (content.go), its HTML and source read (bodies.go, with the CSS
// selectors of selector.go), its attachments read (attachments.go), in the
// shapes of dto.go. Every other path the SDK knows answers 501, naming the
// endpoint.
//
// A client authenticates with `x-api-key`: a tenant's key, or the API token
// (the operator's, as the admin). A key sees its tenant's inboxes alone:
// another tenant's are answered as none (404). Reading takes the read or
// inboxes scope; making, deleting and marking read the inboxes scope. An
// id that is no UUID, a page or a value out of bounds, is 400.
//
// contract.go, contract_lists.go and contract_calls.go are its part of the
// OpenAPI document, and schemas.go what the document says of its shapes.
package mailslurp
