// Package mailslurp serves the MailSlurp API (API.md "Coming from
// Mailosaur, MailSlurp or mail.tm"), a compatible family registered with
// the server as a family.Door: what the `mailslurp-client` SDK calls for
// the part of MailSlurp a test suite uses, under /compat/mailslurp/, which
// is the SDK's basePath. Its inboxes are made (inboxes.go), its mail waited
// for (waits.go), listed and read (emails.go), its codes, links and
// attachments found (content.go), in the shapes of dto.go. Every other path
// the SDK knows answers 501, naming the endpoint.
//
// A client authenticates with `x-api-key`: a tenant's key, or the API token
// (the operator's, as the admin). A key sees its tenant's inboxes alone;
// reading takes the read or inboxes scope, making and deleting the inboxes
// scope.
//
// contract.go is its part of the OpenAPI document, and schemas.go what the
// document says of its shapes.
package mailslurp
