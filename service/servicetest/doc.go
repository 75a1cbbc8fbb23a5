// Package servicetest runs the whole service for tests, through the one
// assembly (service.Start) that `tempmail serve` runs: embedded NATS with
// its store in the test's temporary directory, the views and their
// workers, and HTTP and SMTP on loopback ports the system picks. Tests
// above the back end (api, web, service, cmd/tempmail) get their NATS
// here, never by hand, so that what they try is what runs; those of
// command, ingest and webhooks get it from backend/backendtest, the back
// end alone, whose logger and SMTP helpers this package shares.
//
// The event stream has 2 partitions in tests (16 in service), enough for
// inboxes to share partitions and for partitions to differ.
//
// servicetest.go starts and stops the service; http.go has what tests say
// to it as its users do: HTTP requests, inboxes, /metrics, and mail over
// SMTP (Send, the one way a test that needs a message delivered sends it).
package servicetest
