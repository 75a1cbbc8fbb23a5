// Package events owns the log that is tempmail's only source of truth: the
// event types and their JSON encoding with schema versions, the subjects that
// carry an aggregate (an inbox address, or the domain list) and its partition,
// the JetStream event stream and raw-message object store, and the NATS
// connection itself, embedded in the process or external.
//
// Publishing goes through Store, which gives every write the guarantees the
// rest of the service relies on: Nats-Msg-Id deduplication for retried
// ingests, and expected-last-subject-sequence checks so that the stream, not
// the caller, decides races (two claims of one address, mail racing an
// inbox's deletion).
//
// The NATS side runs three ways: a single embedded server (no listener), an
// embedded node of a JetStream cluster (routes, a client listener, start-up
// waits for the cluster's leader), or an external server or cluster. With
// replicas, reads that must follow a write go to the stream's leader: the
// event stream has direct gets off, and OpenKV's buckets answer Get from
// the leader (leader.go), because a follower may lag what was acknowledged.
//
// Where things are: subjects.go lays out the log (one subject per inbox,
// never per message, and message ids that name their inbox); store.go
// opens the stream, buckets and object store; publish.go is the one way
// anything is written (single messages and atomic batches); appends.go
// holds the lifecycle commands (domains, inboxes, message events);
// copies.go stores received mail (Copy: one recipient's copy); content.go
// and seal.go the sealed records of what a message says, keys.go their
// keys; purge.go forgets what the views let go (Forget); disk.go keeps the
// data directory's disk from filling; node.go starts the embedded server
// and connects, conn.go keeps the connections (lanes, their loss, their
// metrics), leader.go reads from a stream's leader; settle.go retries start-up steps while
// JetStream elects its leaders; secrets.go shares the generated API token.
//
// This package never reads or writes views; that is the projections package.
package events
