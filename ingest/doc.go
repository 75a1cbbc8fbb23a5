// Package ingest receives mail: the SMTP server (smtp.go, on
// emersion/go-smtp) and the inbound webhook's payloads (inbound.go, for
// POST /api/webhook/email/) both end in one delivery path, Deliverer
// (deliver.go), which applies the recipient policy (plus-addressing, and
// on catch-all domains an inbox made by the first mail: catchall.go),
// keeps the raw message (inline in its event when small, in the object
// store when large), parses it with enmime into a bounded summary
// (mail.Parse), and publishes one MailReceived per recipient. With
// Deliverer.Auth set, it first has mailauth check SPF, DKIM and DMARC
// (within the check's own time bound), stores the results with the message
// and puts an Authentication-Results field under our Received; a forged
// one claiming our host name is removed either way.
//
// A message is acknowledged (SMTP 250, webhook 201) only after JetStream has
// stored every recipient's event; if it cannot, nothing is stored and the
// sender is told to retry (451 4.3.0). A retry of the same bytes to the same
// inbox is recognised for the inbox's life, by its print among the inbox's
// newest messages (an MTA retries for days, the stream's dedupe window is 2
// minutes), and is not stored twice: its 250 names the first copy.
//
// What one SMTP client can make the service do is bounded per client (an
// IPv6 client by its /64, as package fairshare keys clients, as the HTTP
// side does): its open connections and messages a minute (limits.go), and
// the bytes it has stored, each message's size times its recipients
// (--smtp-bytes-per-client): beyond it a recipient is refused at RCPT
// (452 4.3.1, when the budget cannot hold the SIZE= its MAIL FROM said
// once more) or the whole message after its data (451 4.3.1), and nothing
// of it is stored.
//
// "Webhook" in this package means the inbound one only; package webhooks
// sends the outbound ones.
//
// This package never reads the event stream or writes views; it reads
// views to decide whether a recipient exists, and makes a catch-all
// domain's inboxes through package command.
package ingest
