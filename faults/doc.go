// Package faults says what an SMTP fault rule is and when it acts: the
// rules a test sets so that tempmail fails on purpose, as it asks
// (docs/failing-on-purpose.md). An inbox's rules act on its own mail from
// RCPT on; the service's (the admin's) at any command, for the clients,
// senders and recipients they match. A rule names the command it acts at,
// what it does there (a reply, a delay before it, closing the connection,
// greylisting, a rate per client) and how often (the first N attempts,
// every Nth, a seeded fraction).
//
// faults.go is a rule and Request.Rule, which checks one as a client sent
// it, bounded in every field; match.go which attempts a rule matches and
// acts at; reply.go the reply it gives. The package holds no state and
// reads nothing: how many attempts a rule has seen is counted in the log
// (events.Attempted, claimed atomically, so that a rule for two attempts
// acts twice across a cluster), and package command asks Acts with that
// count. A rule only ever refuses, delays or drops: nothing here can make
// the service accept mail it would refuse.
package faults
