// Package mailbox is the mailbox model the families' handlers work with:
// what a message is once read (Message, and Head, what a list shows of
// it), which messages a filter selects (Filter, Query), and what a tenant
// uses (Usage). These are values, never stored: the views
// (package projections) keep their own entries and return these, and
// each API family shapes them into its own JSON.
//
// It stands above package mail (what a received message says) and
// events (where its sealed content is in the log), and below everything
// that reads mail: projections, command, webhooks and api.
package mailbox
