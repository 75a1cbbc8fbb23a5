// Package api serves tempmail over HTTP: the three API families of API.md
// (A, the inbox API under /api/; B, the mailbox API under /api/mailstore/
// and /api/create-temp-email/; C, the token API at the root), MCP at /mcp,
// the page, and the operational endpoints. Handlers read views through the
// projections Reader (which joins in what a message says, from its sealed
// content), with two exceptions: a large message's raw source streams from
// the event store's object store (lookup.go), and a webhook's delivery
// attempts and state come from package webhooks, which keeps them. They
// change state only through package command, which publishes an event and
// waits until the views have applied it before the handler answers
// (read-your-writes).
//
// # Where things are
//
// The code is laid out by resource, each serving every family that has it;
// a family's own JSON shapes are in dto_a.go, dto_b.go and dto_c.go (dto.go
// holds what they share, package wire what outbound webhooks share too):
//
//   - server.go: the Server and what it is given (Deps); routes.go: every
//     route, and what every request goes through;
//   - domains.go (the list, the admin's additions, private domains),
//     inboxes.go, messages.go, content.go (raw sources, attachments, the
//     HTML body): the resources;
//   - waiting.go (held requests), search.go (codes and links), streams.go
//     (event streams): the two read paths below;
//   - webhooks.go: outbound webhook subscriptions; inbound.go: the inbound
//     webhook, whose request inbound_read.go reads (a raw message, or JSON
//     that it builds one from) before command delivers it;
//   - auth.go: the API token and the read key; keys.go: who a request
//     comes from (the API token, or a tenant's API key, refused on every
//     path when unknown, revoked or expired: whether it was revoked, or
//     its tenant deleted, asked of the log itself, through package
//     command, so that no end waits for the views); tenants.go: the admin's
//     endpoints for tenants and their keys; usage.go: what a key sees of
//     its tenant (its inboxes, its usage); ops.go: /livez and /readyz;
//     mcp.go: the MCP tools; page.go: the page's configuration; openapi.go:
//     the document; creates.go: who may make an inbox, whose it is, and
//     how many a client may make (and log in, for mail.tm);
//   - compat.go: the compatible families under /compat/<name>/, each in
//     files of its own: compat_mailosaur.go (routes, HTTP Basic, errors),
//     compat_mailosaur_servers.go, compat_mailosaur_messages.go and
//     compat_mailosaur_dto.go; compat_mailslurp.go, compat_mailslurp_inboxes.go,
//     compat_mailslurp_emails.go, compat_mailslurp_waits.go,
//     compat_mailslurp_content.go and dto_mailslurp.go; compat_mailtm.go,
//     compat_mailtm_accounts.go (accounts, passwords, tokens),
//     compat_mailtm_messages.go, compat_mailtm_events.go (its Mercure
//     stream) and dto_mailtm.go.
//
// # Reading while mail arrives
//
// Nothing here polls NATS. One watcher per process sees every write to the
// views and wakes, through the projections Hub, whoever waits on the
// written inbox's topic (projections/doc.go). Two paths wait there:
//
// A held request (wait=, waiting.go): latest, otp, link and
// /address/latest/ look once (hold calls its finder); if nothing is found
// and the request may wait, it subscribes to the inbox's topic and looks
// again on each wake, until it finds, its wait ends, the service stops or
// the client goes. A look reads the inbox's entry afresh (so expiry is
// seen), then scans its newest messages a chunk at a time (search.go),
// remembering how far it looked in vain, so that each wake costs what is
// new, not what the inbox holds.
//
// An event stream (streams.go): it subscribes to the same topic and, on
// each wake, reads the inbox's entry and asks the views for what changed
// after its last event's id (projections.Reader.Changes: new messages from
// the top of the list, reads and deletions from the entry's marks),
// renders each in its family's shape and writes them. A change is written at once;
// changes within streamCoalesce of a write are written together, in one
// write. The id of each event is the log sequence of the event that made
// it, so a client that reconnects with Last-Event-ID is told what it
// missed, from the views, and nothing twice. A stream ends with its inbox,
// after --max-stream-age, or when the service stops.
//
// Both count against --max-waiters and the client's share (waiters.go),
// and neither holds more than its connection and the entry it last read.
//
// # Bounds
//
// Every request costs bounded memory whatever the messages hold: answers
// are encoded as they are written, a list page item by item and within a
// byte budget (answer.go), and attachment downloads share a bounded room
// (downloads.go). Each client (clients.go) has a share of the requests held
// open (waiters.go) and of creations (creates.go, package fairshare);
// beyond it, 429. Every value from outside (path, query, header, body) is
// checked for length and alphabet before it reaches NATS (lookup.go,
// json.go).
//
// Error kinds become statuses and each family's body shape in one place,
// errors.go: each family is registered there (registerDoors) with the
// paths it serves and how its errors look, and a compatible family with
// how its clients say who they are and its routes; a request's family is
// found once, from its path, as it comes in, and every error of the
// request is written in its shape (WriteError), which no handler names.
// Every request is counted, timed and (with --access-log) logged by its
// route pattern, never its path, which may hold a token (observe.go);
// with --cors-origins, browsers' preflights are answered (cors.go).
//
// openapi.json is the OpenAPI 3.1 document of every endpoint, served at
// /openapi.json. It lives here, beside the routes and handlers it
// describes, so that a change to one and the other is one diff, and the
// package's tests hold them to each other: every route is documented, and
// every answer and outbound webhook delivery a test receives must
// validate. redocly.yaml says how redocly's recommended rules, which the
// tests run too, apply to it.
package api
