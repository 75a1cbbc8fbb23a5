// Package view is a views bucket as the engine and the reads use it,
// whatever the views hold: what every entry records (Meta: the sequence of
// the last event applied to it, or that it is a tombstone), how an entry
// is stored and kept (Schema, which the views provide), and every way to
// reach the entries:
//
//   - store.go: a worker's Store on the bucket (KV), which writes a batch's
//     changes with compare-and-swap by revision, pipelined, in the order
//     given, and keeps the hot entries decoded between batches;
//   - bulk.go: a rebuild's Store (Bulk), one writer on a bucket no one
//     reads yet, which holds its working set in memory and writes the rest
//     out as it goes;
//   - reader.go: reads through the process's read cache (cache.go), which
//     the engine's watcher, or a single node's workers, keep current
//     (Reader.Seen; store.go's Observer), and waits for a
//     partition to apply an event (Reader.WaitApplied);
//   - hub.go: the Hub, which wakes the waiters of an entry's writes or a
//     partition's progress.
//
// Checkpoint is here, as the one entry of the engine's that readers read:
// what a partition has applied, and what it counts.
package view
