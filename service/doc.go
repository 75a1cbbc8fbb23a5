// Package service assembles a running tempmail from its configuration:
// the back end (package backend: NATS, embedded or external, the event
// store, the views and their workers, the outbound webhooks, the commands,
// ingest's SMTP listener) and, on it, the HTTP side: the API (with the
// page and the MCP tools it mounts) and the HTTP listener. Start is the
// one assembly of the whole: `tempmail serve` runs it, `tempmail rebuild`
// runs the back end's first steps (Rebuild), and every test that needs
// the service over HTTP builds it through here (service/servicetest), so
// a new dependency is wired in one place; tests below HTTP build the back
// end alone (backend/backendtest).
//
// Beyond wiring, the package owns what belongs to the serving process
// rather than to any part: the family A API token every process of a
// cluster shares (token.go, made in the back end's start order through
// backend.Options.Prepare), the process's health (why it cannot serve,
// /readyz's probe, health.go), its own metrics (parts.go), and handing
// memory back at rest (rest.go). The data directory's lock and its record
// of the store are the back end's.
//
// Start order follows the dependencies: the back end (lock, NATS, event
// store, API token, webhook outbox, views, workers, commands, domains,
// SMTP listener; backend.Start), then the API and the HTTP listener;
// Shutdown stops both listeners at once, then the back end.
package service
