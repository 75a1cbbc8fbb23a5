// Package command changes what tempmail holds: it is the one writer, for
// the API families, MCP, the SMTP server and the inbound webhook alike.
// Inboxes made and ended, messages received, read and deleted, domains
// recorded, webhook subscriptions made, ended and given new secrets. Each
// command checks what it can up front, publishes its event through the
// event store, and waits until the views have applied it (read-your-writes:
// the next read through any family sees the change); a conflict (a race
// the stream decided, or views that lag the log) is tried again after a
// short wait, up to a bound, as long as the caller's context allows.
//
// Where a race must be decided once and for all (two claims of one name,
// a subscription beyond its cap, anything a tenant's quota counts) the
// log or the views decide it, not a read made here first: the checks here
// only answer early, or, for a quota, read the count that the log then
// checks the claim against (the tenant's last event: quotas.go). A key's
// revocation and a tenant's deletion expect nothing, so that views that
// lag never hold them up, and authentication asks the log of them
// (KeyRefused).
//
// Where things are: inboxes.go, messages.go, domains.go, webhooks.go,
// tenants.go (tenants and their API keys), devices.go (a tenant's
// virtual security devices) and faults.go (SMTP fault rules: an inbox's,
// a tenant's, the service's; faultcheck.go asks them at each SMTP command)
// are the commands of the API; mail arriving
// takes three steps, which the SMTP server (package ingest) and the
// inbound webhook (package api) both take: recipients.go decides who
// receives it (Accept: a live inbox, plus-addressing, and on catch-all
// domains an inbox made by the first mail),
// stamp.go puts our Received field on top and, with checks on, has
// mailauth check SPF, DKIM and DMARC and write an Authentication-Results
// field (a forged one claiming our host name is removed either way), and
// deliver.go parses the message (mail.Parse) and stores one MailReceived per
// recipient (Deliver); inbound.go takes the three for the inbound webhook.
// metrics.go counts what is accepted and refused.
//
// A message is acknowledged (SMTP 250, webhook 201) only after the stream
// has stored, on disk, every recipient's event; if it cannot, nothing is
// stored and the sender is told to retry. A retry of the same bytes to the
// same inbox is recognised for the inbox's life, by its print among the
// inbox's newest messages (an MTA retries for days, the stream's dedupe
// window is 2 minutes), and is not stored twice: its answer names the
// first copy.
//
// This package never serves HTTP or SMTP, and never writes views.
package command
