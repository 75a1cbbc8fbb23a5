// Package mailbox is the mailbox model every other package speaks of:
// what a received message says (Content, with its Attachments, Links and
// the checks' conclusions, Auth), what a message is once read (Message,
// and Head, what a list shows of it), which messages a filter selects
// (Filter, Query), what a tenant uses (Usage), and the words the log
// and the families share: what becomes of an inbox's messages
// (Retention), why a message was deleted, what a webhook subscription
// asks for (HookKinds), and where a message's content is (ContentRef).
// The views (package
// projections) keep their own entries and return these, and each API
// family shapes them into its own JSON.
//
// It is a leaf of plain values: it imports nothing but the standard
// library, so that the parser (package mail), the log, the views, the
// families and the Go client's shapes (package wire) all stand on it.
package mailbox
