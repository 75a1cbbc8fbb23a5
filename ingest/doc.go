// Package ingest receives mail: the SMTP server (on emersion/go-smtp) and the
// decoding of the inbound webhook's payloads both end in one delivery path,
// Deliverer, which applies the recipient policy, keeps the raw message (inline
// in its event when small, in the object store when large), parses it with
// enmime into a bounded summary, and publishes one MailReceived per recipient.
// With Deliverer.Auth set, it first has mailauth check SPF, DKIM and DMARC
// (within the check's own time bound), stores the results with the message
// and puts an Authentication-Results field under our Received; a forged
// one claiming our host name is removed either way.
//
// A message is acknowledged (SMTP 250, webhook 201) only after JetStream has
// stored every recipient's event; if it cannot, nothing is stored and the
// sender is told to retry (451 4.3.0). A retry of the same bytes to the same
// inbox within the dedupe window is recognised and not stored twice.
//
// This package never reads the event stream or writes views; it reads views
// only to decide whether a recipient exists.
package ingest
