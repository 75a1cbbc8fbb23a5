// Package client is a small Go client of tempmail's family C API (the token
// API): make an inbox, list and read its messages, delete it, and wait for
// a message, a one-time code or a link (inbox.go, wait.go; client.go
// sends the requests and reads the answers); with a
// tenant's key (Client.Key) the inboxes it makes are its tenant's. The
// admin makes tenants and keys and revokes keys (admin.go). An inbox's
// token also sets fault rules, what the service's SMTP side answers for
// deliveries to it, and reads the attempts log (faults.go). `tempmail inbox`, `tempmail wait`
// and the MCP tools (package mcpserver) are built on it, so that all of
// them behave as the HTTP API documents (docs/API.md).
//
// A wait longer than the service holds one request (60 s) is a chain of
// held requests, each answered as soon as what it waits for arrives: no
// polling. A wait returns what already matches at once; Query.After (a
// message id) and Query.AfterTime count only what came later.
//
// It follows a redirect only within the service's origin: the token is in
// the path and the read key and the key in headers, and none goes
// elsewhere, nor into an error's text (CI logs are often public;
// redact.go). What
// it returns was written by senders (and by a server it may not trust):
// Printable and PrintableJSON write out the characters a terminal would
// act on or hide, for whoever prints it.
//
// What it reads are the token API's own shapes, declared once in package
// wire (which needs only the standard library): a Message is a
// wire.Message with the answer's raw JSON beside it, and times are
// wire.Time, a time.Time as the service writes it.
//
// It knows nothing of the service's internals: it speaks HTTP to a base
// URL through an http.Client, which the service itself may point at its
// own handler (package api does, for the MCP tools it serves).
package client
