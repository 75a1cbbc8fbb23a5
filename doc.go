// Package tempmail holds the few things every part of the service shares:
// the error kinds that the api maps to HTTP statuses and SMTP replies, and
// address normalisation. It has no dependencies on the rest of the module and
// must stay that way; the packages below it own everything else (README.md,
// "How it is built", says what each owns, from the command line down to
// wire's JSON shapes).
//
// # The package map
//
// From the top down; a package imports only packages on its own row or the
// rows below, never one above (go list -deps shows it). The families are
// adapters side by side: each has its routes, its credential, its error
// shape and its JSON shapes, over what api/family gives them all, and none
// imports another but api/admin, which answers in family A's shapes.
//
//	cmd/tempmail                     the command line
//	service, backend                 the assembly, with and without HTTP
//	api                              HTTP: the families registered over one Kit
//	api/admin                        family A's administration: tenants, keys, domains
//	api/inboxapi  api/mailboxapi  api/tokenapi  api/inbound  api/mcphttp
//	api/compat/mailosaur  api/compat/mailslurp  api/compat/mailtm
//	api/family, api/openapi          what every family shares; the document made from Go
//	command, ingest, webhooks        the one writer, SMTP, outbound webhooks
//	projections                      the views: what each event does, and the Reader
//	projections/engine, …/view, …/entry   the engine, the bucket, the stored entries
//	events, sealed, broker           the log, sealed contents and keys, NATS
//	mcpserver, client                the MCP tools, on the Go client of family C
//	mail, mailauth, config, fairshare, logs, retry, web (the page)
//	wire                             family C's shapes, which the client reads
//	mailbox                          the model: content, message, head, filter, usage
//	tempmail                         error kinds, addresses
//
// Tests stand beside them: service/apitest runs the service for every family's
// handler tests, service/servicetest and backend/backendtest run it whole
// or without HTTP, broker/natstest runs NATS.
//
// Its tests hold the repository's doc check too (docnames_test.go): no
// comment names a file or a symbol that does not exist.
package tempmail
