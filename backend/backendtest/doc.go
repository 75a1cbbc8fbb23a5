// Package backendtest runs tempmail's back end for tests, through the one
// assembly (backend.Start) that service.Start runs under its HTTP side:
// embedded NATS with its store in the test's temporary directory, the
// views and their workers, the outbound webhooks, the commands, and SMTP
// on a loopback port the system picks. The tests of command, ingest and
// webhooks get their NATS here, never by hand, so that what they try is
// what runs; they link nothing of HTTP. Tests that need the HTTP side use
// service/servicetest, which shares this package's logger and SMTP
// helpers.
//
// The event stream has 2 partitions in tests (16 in service), enough for
// inboxes to share partitions and for partitions to differ. A back end's
// log is kept, and printed if its test fails (LogOnFailure).
//
// backendtest.go starts and stops the back end; make.go makes what tests
// need through its commands, as the API does for its callers (domains,
// family C inboxes, tenants, a delivered message); smtp.go sends mail
// over SMTP (Send, the one way a test that needs mail through ingest
// sends it); metrics.go reads what the back end counts, as /metrics
// shows it.
package backendtest
