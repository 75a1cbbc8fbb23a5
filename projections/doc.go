// Package projections builds and serves the key-value views that every read
// of the service is answered from. Views are derived from the event stream
// and only from it: the projection workers here are their only writers, and
// `tempmail rebuild` can always build them anew by replaying the log.
//
// What it writes, in one views bucket (VIEWS_<generation>):
//
//	d.<id>, dn.<name>    a domain, by its id and by its name (domains.go)
//	dp, dt.<tenantID>    the public domains; a tenant's private domains' ids
//	i.<inboxID>          an inbox, and everything a read of its mail starts from: its
//	                     fields and counts, its open list page (its newest messages),
//	                     the index of its closed pages, its latest reads and deletions
//	                     (Marks, what event streams tell), its subscriptions
//	l.<inboxID>.<n>      a closed page of an inbox's list: 32 summaries, newest first
//	a.<addressKey>       which inbox holds an address, and the address's last lifecycle sequence
//	t.<token>            which inbox a family C token names
//	n.<tag>              which inboxes a message id's tag names (events.InboxTag)
//	m.<messageID>        the inbox of a message received before ids named it (format 2)
//	w.<webhookID>        an outbound webhook subscription
//	webhooks             the subscriptions to every inbox (those of one inbox are in its entry)
//	tenant.<tenantID>    a tenant, its live keys and what its quota counts (tenants.go)
//	kh.<hash>            a live API key by its hash, what authentication reads
//	ki.<keyID>           which tenant a key id names
//	tl., tp., tm.        a tenant's inboxes: their list, its pages, each inbox's place (tenantlist.go)
//	tu.<tenantID>.<part> a tenant's usage in one partition: today's messages, stored bytes, subscriptions (usage.go)
//	dv.<deviceID>        a tenant's virtual security device, with its shared secret (devices.go)
//	td.<tenantID>        a tenant's devices: their ids and names, at most MaxTenantDevices
//	c.<partition>        the last stream sequence applied in a partition, and its counts
//	f.<partition>        what the log is still to forget of what the partition let go
//	x.<partition>        the events the partition set aside (engine/aside.go)
//
// No entry grows with what users do: each holds one thing, or a list
// bounded by a cap (an inbox's newest messages, a tenant's keys, the public
// domains) or a page of one.
//
// A message costs one write: its summary goes into its inbox's open page,
// in the inbox's own entry; a full page is written out once, closed. An
// inbox and a closed page are stored in a compact binary form
// (entry/codec.go), the rest as JSON. Nothing in a view says what a message
// says: readers join that in from its sealed content
// (events.Store.Content).
//
// The write path (engine/worker.go, engine/consumer.go): every process runs
// a worker per partition, each partition's consumer pinned to one of them
// at a time. A worker applies what is waiting in a batch, in memory
// (engine/batch.go, and here apply*.go), hands the outbound webhooks it
// calls for to the outbox, then writes the entries the batch changed, each
// once: first what the log is to forget, then the entries, those a reader
// reaches first (inbox, address) after what they lead to (views.Rank,
// schema.go), and only once those are stored, the checkpoint (a checkpoint
// stored past a failed write would have the batch taken for applied). Every
// entry records the sequence of the last event applied to it and is written
// with compare-and-swap, so a batch applied again (after a crash, or by two
// workers during a hand-over) changes nothing it already did. Once the
// checkpoint says the views reflect a deletion, the log forgets what it
// deleted (events.Store.Forget): keys erased, events deleted by sequence,
// subjects purged as far as the checkpoint (an event stored there since is
// still to be applied).
//
// The read paths (reader.go, list.go, changes.go) answer in the mailbox
// model (package mailbox: a message read whole, filters) where what they
// return is not an entry itself. Every read is a small, constant number of
// gets: an inbox by token is two, a message of a known inbox is its entry
// plus at most one closed page, a list page is the inbox plus the closed
// pages it covers. One watcher per process (engine/watcher.go) sees every
// write to the views in order (a single node's workers, the only writers,
// tell what they stored instead); it keeps the read cache (view/cache.go)
// current and feeds the Hub (view/hub.go), which wakes waiters by topic: an
// inbox's (its entry was written), a partition's (its checkpoint moved). A
// command waits on its partition's topic for its own event (WaitApplied,
// read-your-writes); a long-poll waits on its inbox's topic and reads
// again; an event stream, on the same topic, reads the inbox's entry and
// tells what changed since its last event (Changes): new messages from the
// top of the list, reads and deletions from the Marks, at a cost that grows
// with what changed, not with what the inbox holds.
//
// An event that cannot be applied, the same way each time, is set aside and
// its partition goes on (engine/aside.go). Earlier events that no worker
// applies while a worker holds newer ones (the one that held them stalled,
// or the consumer lost them around leader changes) are read from the log
// and applied by the worker that holds the newer (engine/gap.go); a
// consumer that passed over a partition's last events is started again
// after the checkpoint (engine/passed.go).
//
// Where things are: tenants.go holds the views of tenants and keys and
// their reads, apply_tenants.go applies their events, tenantlist.go keeps a
// tenant's list of inboxes, usage.go what its quota counts in each
// partition, devices.go its virtual security devices; domains.go holds
// the domains; webhooks.go the subscriptions and the deliveries events
// call for; open.go opens a process's views and rebuilds them; schema.go
// is what the engine needs of them.
//
// The package is tempmail's views; what they stand on is in three packages
// beneath it, none of which imports it:
//
//   - projections/engine keeps views current from the log, whatever they
//     hold: workers and their consumers, batches and the order of their
//     writes, checkpoints, what the log forgets, events set aside, gaps
//     and passed-over consumers, rebuilds and the generations of the views
//     bucket, the watcher, health and metrics. Of the views it asks only
//     engine.Views: apply an event to a batch, rank a write, store an entry.
//   - projections/entry is the entries these views store, and their binary
//     form; the names here (Inbox, Summary, Tenant, ...) are aliases of its
//     types (entries.go).
//   - projections/view reads and writes a views bucket: what every entry
//     records (view.Meta), the stores a worker and a rebuild write
//     through, the read cache and the Hub.
//
// This package never publishes events and never serves HTTP.
package projections
