// Package ingest is the SMTP server (smtp.go, on emersion/go-smtp): the
// conversation, and what one client may make it do. Each message's
// recipients, its trace and authentication headers and its delivery are
// package command's (Accept, Authenticate, Deliver), the one path the
// inbound webhook (package api) takes too. A message is answered 250 only
// once every recipient's copy is stored on disk; if it cannot be, nothing
// is stored and the sender is told to retry (451 4.3.0).
//
// What one SMTP client can make the service do is bounded per client (an
// IPv6 client by its /64, as package fairshare keys clients, as the HTTP
// side does): its open connections and messages a minute (limits.go), and
// the bytes it has stored, each message's size times its recipients
// (--smtp-bytes-per-client): beyond it a recipient is refused at RCPT
// (452 4.3.1, when the budget cannot hold the SIZE= its MAIL FROM said
// once more) or the whole message after its data (451 4.3.1), and nothing
// of it is stored. What it is refused is counted, by reason, every time,
// but logged a few times only, per session and per client (refusals.go):
// a client refused ten thousand times costs the log a few lines.
//
// What a test asked of the server, to fail on purpose (package faults),
// is acted on in faults.go: a rule's reply, delay or closed connection at
// the greeting, EHLO, MAIL, RCPT, during DATA and after it. Rules are
// asked only where the server would go on otherwise.
//
// This package never reads the event stream, writes views or stores
// anything itself: it speaks SMTP and bounds its clients (limits.go,
// budget.go); metrics.go times each message.
package ingest
