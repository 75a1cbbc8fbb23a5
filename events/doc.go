// Package events owns the log that is tempmail's only source of truth: the
// event types and their JSON encoding with schema versions, the subjects that
// carry an aggregate (an inbox address, the domain list, or a tenant) and its partition,
// the JetStream event stream and raw-message object store, appends to them,
// reads and purges. NATS itself (the embedded server or an external one, its
// connections, leader reads, flushes) is package broker's; what a message
// says, sealed, and the keys it is sealed under, package sealed's: the log
// holds a message's content only sealed, and forgets it by erasing its key.
//
// Publishing goes through Store, which gives every write the guarantees the
// rest of the service relies on: Nats-Msg-Id deduplication for retried
// ingests, and expected-last-subject-sequence checks so that the stream, not
// the caller, decides races (two claims of one address, mail racing an
// inbox's deletion). With replicas, reads that must follow a write go to the
// stream's leader: the event stream has direct gets off, and the buckets
// broker.OpenKV opens answer Get from the leader.
//
// Where things are: subjects.go lays out the log (one subject per inbox,
// never per message, and message ids that name their inbox); store.go opens
// the stream and object store; publish.go is the one way anything is
// written (single messages and atomic batches); appends.go holds the
// appends of the lifecycle events (inboxes, message events, webhooks);
// domains.go those of domains, one subject per name; tenants.go the events
// of tenants and their API keys, each tenant one aggregate, and the claims
// of a tenant's inboxes, counted on its subject in one batch with the
// claim (CreateTenantInbox); devices.go a tenant's virtual security
// devices, on its subject too; claims.go how every quota is claimed that
// way, and what authentication asks the log of a key (KeyRefused);
// migrate.go brings a log of an earlier format to this one; copies.go
// stores received mail (Copy: one recipient's copy), sealed under a key of
// its own; content.go opens it again (Store.Content, Store.OpenRaw) and
// keeps it in the cache; purge.go forgets what the views let go (Forget),
// erasing the keys of what is gone. Package eventstest opens a store for
// tests.
//
// This package never reads or writes views; that is the projections package.
package events
