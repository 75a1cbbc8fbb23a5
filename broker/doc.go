// Package broker owns NATS for the rest of the service: the JetStream
// server embedded in the process, or the external one it connects to, and
// what every package that keeps something in JetStream needs of it. It knows
// nothing of what is kept there (events, views, webhook jobs); those
// packages import it, and it imports none of them.
//
// NATS runs three ways: a single embedded server (no listener), an embedded
// node of a JetStream cluster (routes, a client listener, start-up waits
// for the cluster's leader), or an external server or cluster. With
// replicas, reads that must follow a write go to the stream's leader:
// OpenKV's buckets answer Get from the leader, as Entries does, because a
// follower may lag what was acknowledged.
//
// Where things are: node.go starts the embedded server (or dials the
// external one) and closes it; embedded.go sets the embedded server's
// options and waits until it serves; conn.go keeps the connections (lanes,
// their loss, their metrics); logger.go puts the embedded server's log lines
// at levels operators can alert on; streams.go opens streams, KV buckets and
// object stores alike (EnsureStream, OpenKV, OpenObjectStore); publish.go
// does what nats.go has no helper for yet: message schedules (Schedule) and
// atomic batches (PublishBatch); leader.go reads from a stream's leader
// (ValidKey bounds the keys read); settle.go retries start-up steps while
// JetStream elects its leaders (Settle, Transient); flush.go puts a single
// node's acknowledged writes on disk in group commits (Flusher); files.go
// writes files that outlast a power cut (WriteFileSynced, SyncDir); disk.go
// keeps the data directory's disk from filling (DiskGuard); errors.go tells
// NATS's answers apart for every store (WrongLastSeq, MsgGone, ErrorCode,
// Unavailable). Package natstest runs NATS for tests.
package broker
