// Package service assembles a running tempmail from its configuration:
// NATS (embedded or external), the event store, the views and their
// workers, the outbound webhooks, the commands, ingest and the API, and
// the listeners the configuration asks for. Start is the one assembly:
// `tempmail serve` runs it, `tempmail rebuild` runs its first steps, and
// every test that needs the service builds it through here
// (service/servicetest), so a new dependency is wired in one place.
//
// Beyond wiring, the package owns what belongs to the process rather than
// to any part: the data directory's lock (lock.go) and its record of the
// store it holds, which tells a store that lost streams from a new one
// (record.go; what a start makes of it, store.go), the family A API token
// every process of a cluster shares (token.go), the process's health
// (why it cannot serve, /readyz's probe, health.go), and handing memory
// back at rest (rest.go).
//
// Start order follows the dependencies: lock, NATS, event store, API
// token, webhook outbox, views (rebuilt first when an earlier version
// built them and this process alone holds the data), workers, commands,
// domains, listeners; Shutdown goes the other way.
package service
