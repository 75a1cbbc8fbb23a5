// Package command changes what tempmail holds, for the API and for ingest:
// inboxes made and ended, messages read and deleted, domains recorded,
// webhook subscriptions made, ended and given new secrets. Each command
// checks what it can up front, publishes its event through the event
// store, and waits until the views have applied it (read-your-writes: the
// next read through any family sees the change); a conflict (a race the
// stream decided, or views that lag the log) is tried again after a short
// wait, up to a bound, as long as the caller's context allows.
//
// Where a race must be decided once and for all (two claims of one name,
// a subscription beyond its cap) the log or the views decide it, not a
// read made here first: the checks here only answer early.
//
// This package never serves HTTP or SMTP, and never writes views.
package command
