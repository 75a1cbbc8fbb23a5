// Package engine keeps views current from the event log, whatever the
// views hold: it applies the log's events to a views bucket and serves
// the bucket's progress. Package projections gives it tempmail's views
// through Views: how an event changes them (Applier), in what order a
// batch's writes may be seen (Views.Rank), and how their entries are
// stored (view.Schema). It never imports them.
//
// What it owns, in the views bucket (VIEWS_<generation>, BucketName):
//
//	c.<partition>   the last stream sequence applied in a partition, and its counts (view.Checkpoint)
//	f.<partition>   what the log is still to forget of what the partition let go (Pending)
//	x.<partition>   the events the partition set aside (SetAside, aside.go)
//
// and in the META bucket which generation is current, and its format
// (generations.go).
//
// The write path: every process runs a worker per partition (worker.go),
// each partition's durable consumer pinned to one of them at a time
// (consumer.go). A worker applies what is waiting in a Batch, in memory
// (batch.go): the views load entries through it (Load) and change them
// (Tx.Save, Tx.Remove), every entry recording the sequence of the last
// event applied to it, so that applying an event again changes nothing.
// It hands what the events call for beyond the views to the outbox
// (Applier.Dispatch), then writes the entries the batch changed, each
// once, with compare-and-swap by revision (view.KV): first what the log is
// to forget, then the views' entries rank by rank, and only once those are
// stored, the checkpoint (a checkpoint stored past a failed write would
// have the batch taken for applied). Once the checkpoint says the views
// reflect a deletion, the log forgets what it deleted
// (events.Store.Forget), never past the checkpoint, and the batch is
// acknowledged.
//
// An event that cannot be applied, the same way each time, is set aside
// and its partition goes on (aside.go). Earlier events that no worker
// applies while a worker holds newer ones are read from the log and
// applied by the worker that holds the newer (gap.go); a consumer that
// passed over a partition's last events is started again after the
// checkpoint (passed.go).
//
// Where else things are: engine.go opens, starts and stops a process's
// engine; watcher.go watches every write to the bucket, in order, keeping
// the read cache and the Hub (package view) current, or on a single node,
// whose workers are the bucket's only writers, has them tell what they
// stored instead (observer); rebuild.go replays
// the whole log into a new generation (Rebuild, Replay); metrics.go and
// health.go report lag, delay, counts and what is failing.
//
// This package never publishes events and never serves HTTP.
package engine
