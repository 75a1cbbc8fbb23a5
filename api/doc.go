// Package api serves tempmail over HTTP: the three API families of SPEC.md
// and API.md (A, the inbox API under /api/; B, the mailbox API under
// /api/mailstore/ and /api/create-temp-email/; C, the token API at the root)
// and the operational endpoints. Handlers read views through the projections
// Reader and change state only by publishing events through the events
// Store, waiting until their own event is applied before they answer
// (read-your-writes). The command logic they share (creating inboxes,
// recording domains) lives in commands.go.
//
// Every request costs bounded memory whatever the messages hold: answers
// are encoded as they are written, a list page item by item and within a
// byte budget (answer.go), and attachment downloads share a bounded room
// (downloads.go). Each client (clients.go) has a share of the requests held
// open (waiters.go) and of creations (creates.go); beyond it, 429.
//
// Error kinds become statuses and each family's body shape in one place,
// errors.go. Every request is counted, timed and (with --access-log) logged
// by its route pattern, never its path, which may hold a token (observe.go);
// with --cors-origins, browsers' preflights are answered (cors.go).
//
// openapi.json is the OpenAPI 3.1 document of every endpoint, served at
// /openapi.json (openapi.go). It lives here, beside the routes and
// handlers it describes, so that a change to one and the other is one
// diff, and the package's tests hold them to each other: every route is
// documented, and every answer and outbound webhook delivery a test
// receives must validate. redocly.yaml says how redocly's recommended
// rules, which the tests run too, apply to it.
package api
