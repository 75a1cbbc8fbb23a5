// Package projections builds and serves the key-value views that every read
// of the service is answered from. Views are derived from the event stream
// and only from it: the projection workers here are their only writers, and
// `tempmail rebuild` can always build them anew by replaying the log.
//
// Layout of one views bucket (VIEWS_<generation>):
//
//	domains              the domain list
//	i.<inboxID>          an inbox: its fields, message count, newest message and list pages
//	a.<addressKey>       which inbox holds an address, and the address's last lifecycle sequence
//	t.<token>            which inbox a family C token names
//	m.<messageID>        a message: where it is and its state (what it says stays sealed in the log)
//	l.<inboxID>.<page>   one page of an inbox's message list: summaries, newest first
//	r.<inboxID>          an inbox's latest deletions, for event streams that reconnect
//	w.<webhookID>        an outbound webhook subscription
//	webhooks             the subscriptions to every inbox (those of one inbox are in its entry)
//	c.<partition>        the last stream sequence applied in a partition, and the partition's counts
//	                     (live inboxes, stored messages) once it is applied
//
// Every read is a constant number of KV gets: an inbox by token is two, a
// message is one, a list is the inbox plus its pages, whose number is bounded
// by --max-messages-per-inbox. Every entry records the stream sequence it
// reflects; a write happens only if that sequence is older than the event's,
// and uses compare-and-swap. Applying an event twice, resuming after a crash
// half-way through an event, or two workers overlapping during a hand-over
// therefore change nothing. Deleted entries become short-lived tombstones
// rather than vanishing, so a late, older event cannot resurrect them.
//
// Every process runs a worker per partition; each partition's consumer is
// pinned to one of them at a time (a priority group), and moves when that
// worker stops or dies.
//
// One watcher per process turns view changes into in-memory notifications
// (Hub): commands wait on it for their own events (read-your-writes), and
// long-polling requests wait on it for new mail.
//
// Where things are: projector.go starts and stops a process's views;
// generations.go keeps track of the current views bucket; worker.go runs a
// partition's consumer; apply.go turns one event into view writes (views.go
// has the entries, store.go the compare-and-swap store under them);
// watcher.go, hub.go and cache.go carry changes to readers; reader.go
// answers reads; rebuild.go replays the log; metrics.go reports lag, the delay
// from an event to the views, and the counts the checkpoints carry.
//
// This package never publishes events and never serves HTTP.
package projections
