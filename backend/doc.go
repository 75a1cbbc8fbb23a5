// Package backend assembles tempmail's back end, everything but HTTP, from
// its configuration: NATS (embedded or external), the event store, the
// webhook outbox, the views and their workers, the outbound webhooks, the
// commands (and with them mail's delivery and each client's share of
// creations), the configured domains, and the SMTP listener of package
// ingest. Start is the one assembly of these parts: service.Start runs it
// and adds the HTTP side on top (the API, the page, MCP, the HTTP
// listener); `tempmail rebuild` runs its first steps (Rebuild); tests of
// the packages below HTTP (command, ingest, webhooks) build it through
// backend/backendtest, and link none of api, web or mcpserver.
//
// Beyond wiring, the package owns what belongs to the store the process
// holds rather than to any part: the data directory's lock (lock.go) and
// its record of the store, which tells a store that lost streams from a
// new one (record.go; what a start makes of it, store.go), the NATS and
// store settings the configuration makes (parts.go), and what ends the
// back end against its will (Backend.Fatal: the NATS connection lost,
// the SMTP listener stopped).
//
// Start order follows the dependencies: lock, NATS, event store, what the
// caller keeps beside it (Options.Prepare: the service's API token),
// webhook outbox, views (rebuilt first when an earlier version built them
// and this process alone holds the data), workers, commands, domains, the
// SMTP listener; Shutdown goes the other way.
package backend
