// Package faults says what an SMTP fault rule is and when it acts: the
// rules a test sets on an inbox so that tempmail fails on purpose, as it
// asks (docs/failing-on-purpose.md). A rule names the SMTP command it acts
// at, what it does there (a reply, a delay before it, or closing the
// connection) and how often (the first N attempts, every Nth, a seeded
// fraction); Parse checks one as a client sent it, bounded in every field.
//
// The package holds no state and reads nothing: how many attempts a rule
// has seen is counted in the log (events.Attempted, claimed atomically, so
// that a rule for two attempts acts twice across a cluster), and package
// ingest asks Acts with that count. A rule only ever refuses, delays or
// drops: nothing here can make the service accept mail it would refuse.
package faults
