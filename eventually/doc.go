// Package eventually waits, in tests, for what the service does a moment
// after it answers: a projection applying an event, a webhook delivered,
// an expiry fired. It polls a condition, quickly at first and then less
// often, and fails the test with what it waited for when the time is up,
// in the manner of nats-server's checkFor. Tests wait on signals like
// these instead of sleeping for a guessed time.
package eventually
