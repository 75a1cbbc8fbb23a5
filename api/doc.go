// Package api serves tempmail over HTTP: the three API families of docs/API.md
// (A, the inbox API under /api/; B, the mailbox API under /api/mailstore/
// and /api/create-temp-email/; C, the token API at the root), the
// compatible families under /compat/<name>/, MCP at /mcp, the page, and the
// operational endpoints. It assembles them: each family is given one
// family.Kit (the service's parts, and the bounds every request shares) and
// registered as a family.Door (its paths, its errors' shape, and, for a
// compatible family, its credential and routes); the server finds a
// request's door once, from its path, and every error is written in its
// family's shape (family.WriteError), which no handler names.
//
// Handlers read views through the projections Reader (which joins in what a
// message says, from its sealed content), with two exceptions: a large
// message's raw source streams from the event store's object store
// (family/lookup.go), and a webhook's delivery attempts and state come from
// package webhooks, which keeps them. They change state only through
// package command, which publishes an event and waits until the views have
// applied it before the handler answers (read-your-writes).
//
// # Where things are
//
// The families, each a package over the Kit, side by side:
//
//   - family: the Kit, Door and WriteError, credentials, lookups, answers,
//     held requests, event streams, downloads, outbound subscriptions:
//     what every family shares;
//   - inboxapi: family A; mailboxapi: family B; tokenapi: family C;
//     admin: tenants, their keys, and domains added at run time (family
//     A's paths); inbound: the inbound webhook (family A's path);
//     compat/mailosaur, compat/mailslurp, compat/mailtm: the compatible
//     families; mcphttp: /mcp, whose tools call the API in process
//     through the server's router.
//
// Here, the assembly:
//
//   - server.go: the Server and what it is given (Deps); routes.go: every
//     family's routes mounted, and what every request goes through (who it
//     comes from, bounded bodies, 404 and 405 in its family's shape);
//     families.go: the doors; observe.go, cors.go: metrics, the access
//     log, preflights;
//   - ops.go: /livez and /readyz; page.go: the page's configuration;
//     openapi.go: the document, served; contract.go, schemas.go: the
//     assembly's part of the document; sharedcontract.go,
//     sharedschemas.go: the part every family shares (credentials,
//     common parameters and answers, timestamps, authentication results,
//     links, event streams, outbound webhooks).
//
// # Reading while mail arrives
//
// Nothing here polls NATS. One watcher per process (on a single node, the
// workers that write them) sees every write to the views and wakes, through the projections Hub, whoever waits on the
// written inbox's topic (projections/doc.go). Two paths wait there:
//
// A held request (wait=, family/waiting.go): latest, otp, link and
// /address/latest/ look once (family.Kit.Hold calls its Finder); if nothing
// is found and the request may wait, it subscribes to the inbox's topic and
// looks again on each wake, until it finds, its wait ends, the service
// stops or the client goes. A look reads the inbox's entry afresh (so
// expiry is seen), then scans its newest messages a chunk at a time
// (family/search.go), remembering how far it looked in vain, so that each
// wake costs what is new, not what the inbox holds.
//
// An event stream (family/streams.go): it subscribes to the same topic and,
// on each wake, reads the inbox's entry and asks the views for what changed
// after its last event's id (projections.Reader.Changes: new messages from
// the top of the list, reads and deletions from the entry's marks), renders
// each in its family's shape and writes them. A change is written at once;
// changes within streamCoalesce of a write are written together, in one
// write. The id of each event is the log sequence of the event that made
// it, so a client that reconnects with Last-Event-ID is told what it
// missed, from the views, and nothing twice. A stream ends with its inbox,
// after --max-stream-age, or when the service stops.
//
// Both count against --max-waiters and the client's share
// (family/waiters.go), and neither holds more than its connection and the
// entry it last read.
//
// # Bounds
//
// Every request costs bounded memory whatever the messages hold: answers
// are encoded as they are written, a list page item by item and within a
// byte budget (family/answer.go), and attachment downloads share a bounded
// room (family/downloads.go). Each client (family/clients.go) has a share
// of the requests held open (family/waiters.go) and of creations
// (family/creates.go, package fairshare); beyond it, 429. Every value from
// outside (path, query, header, body) is checked for length and alphabet
// before it reaches NATS (family/lookup.go, family/json.go).
//
// Error kinds become statuses in one place, family/errors.go, and each
// family's body shape in its door; the doors are registered in families.go
// (registerDoors). Every request is counted, timed and (with --access-log)
// logged by its route pattern, never its path, which may hold a token
// (observe.go); with --cors-origins, browsers' preflights are answered
// (cors.go).
//
// openapi.json is the OpenAPI 3.1 document of every endpoint, served at
// /openapi.json. It is made from Go, so that a change to a handler's shapes
// and to the document is one change: each family declares its operations
// beside its routes (contract.go) and describes its shapes beside their
// types (schemas.go), whose schemas are reflected from the types the
// handlers encode (package openapi); contract.go here puts them together
// with the shared part (sharedcontract.go) and openapi-head.json (the info,
// servers and tags), and go generate ./api/ writes the document, which is
// checked in and embedded. The package's tests hold the document and the
// code to each other: it is what the declarations make, every route is
// documented, and every answer and outbound webhook delivery a test
// receives must validate. redocly.yaml says how redocly's recommended
// rules, which the tests run too, apply to it.
package api
