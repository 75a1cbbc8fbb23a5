// Package fairshare counts what each client makes, so that one client
// cannot take what the service has for all: a Limiter gives each client a
// bucket of N creations, refilled evenly over a period. The API counts
// inboxes and webhook subscriptions made over HTTP; ingest counts the
// inboxes a catch-all domain makes for mail; one Limiter serves both, so a
// client's share is one share whichever way it comes. Other Limiters count
// a client's requests to /mcp, and the bytes an SMTP client has stored
// (a message's size times its recipients).
package fairshare
