// Package ingest receives mail: the SMTP server (smtp.go, on
// emersion/go-smtp) and the inbound webhook's payloads (inbound.go, for
// POST /api/webhook/email/) both end in one delivery path, Deliverer
// (deliver.go), which applies the recipient policy (plus-addressing, and
// on catch-all domains an inbox made by the first mail: catchall.go),
// keeps the raw message (inline in its event when small, in the object
// store when large), parses it with enmime into a bounded summary
// (parse.go), and publishes one MailReceived per recipient. With
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
// "Webhook" in this package means the inbound one only; package webhooks
// sends the outbound ones.
//
// This package never reads the event stream or writes views; it reads
// views to decide whether a recipient exists, and makes a catch-all
// domain's inboxes through package command.
package ingest
