package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/events"
	"tempmail/projections/view"
)

const (
	metaBucket    = "META"
	generationKey = "views"
	consumerPre   = "views-g"
	// ackWait bounds how long a partition's event may be in a worker's hands
	// before the server delivers it again. It is shorter than pinnedTTL:
	// when a worker dies holding a batch, its events are due again before
	// the partition moves to another worker, which so gets them first, in
	// order, ahead of newer ones. A worker busy for longer (a big inbox's
	// erasure) gets its own events again, and skips them as applied.
	// view.TombstoneTTL must outlast it.
	ackWait = 2 * time.Second

	// Every process runs a worker for every partition; the server pins each
	// partition's consumer to one of them (a priority group with the pinned
	// client policy) and moves the pin when that worker has not pulled for
	// pinnedTTL: when its process stopped or died. Pinning is not
	// exclusive for a moment around a move; applying is idempotent.
	PriorityGroup = "views"
	pinnedTTL     = 5 * time.Second
)

// Options configures the engine of a process.
type Options struct {
	Replicas int // of the views bucket and consumers; 1, or 3 on a cluster
	Logger   *slog.Logger
	// Exclusive says this process is the only one applying events (a single
	// node that holds its data directory). Then Start resets each consumer
	// to just after its checkpoint: an event a killed predecessor held
	// unacknowledged is redelivered at once instead of after the ack wait;
	// and its workers, the views' only writers, tell the read cache and the
	// waiters what they wrote, in a watcher's place (observer).
	Exclusive bool
	// Format names the layout of the views' entries: a current generation
	// of another format was written by an earlier version, and is built
	// anew from the log (ErrOutdated).
	Format string
}

// Engine is the projection side of one process: it runs a worker per
// partition that applies events to the current generation's bucket, and one
// watcher that keeps the read cache current and feeds the Hub. Its Reader
// reads the bucket.
type Engine struct {
	reader  *view.Reader
	kv      jetstream.KeyValue
	views   Views
	schema  schema
	js      jetstream.JetStream
	store   *events.Store
	entries *broker.Entries // the views bucket's last messages, for compare-and-swap
	gen     int
	log     *slog.Logger
	opts    Options

	cancel  context.CancelFunc
	wg      sync.WaitGroup
	applied atomic.Uint64 // events this process's workers have applied
	health  *health
	metrics viewMetrics
	tally   *tally // the partitions' counts, from their checkpoints
}

// Reader reads the views the engine keeps.
func (v *Engine) Reader() *view.Reader { return v.reader }

// Bucket is the views bucket the engine keeps.
func (v *Engine) Bucket() jetstream.KeyValue { return v.kv }

// Applied is how many events this process's workers have applied (including
// redeliveries they found already applied): with several processes, which
// share of the work this one does.
func (v *Engine) Applied() uint64 { return v.applied.Load() }

// Open creates or opens the current generation of views. It does not start
// the workers; Start does.
func Open(ctx context.Context, js jetstream.JetStream, store *events.Store, views Views, opts Options) (*Engine, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Replicas == 0 {
		opts.Replicas = 1
	}
	meta, err := metaKV(ctx, js, opts.Replicas)
	if err != nil {
		return nil, err
	}
	gen, _, recorded, err := currentGeneration(ctx, meta, opts.Format)
	if err == nil && recorded {
		err = store.Flush(ctx, "KV_"+metaBucket)
	}
	if err != nil {
		return nil, err
	}
	if f, err := currentFormat(ctx, meta); err != nil {
		return nil, err
	} else if f != opts.Format {
		return nil, ErrOutdated
	}
	if err := checkPresent(ctx, js, store, gen, recorded); err != nil {
		return nil, err
	}
	kv, err := ViewsBucket(ctx, js, gen, opts.Replicas)
	if err != nil {
		return nil, err
	}
	entries, err := broker.NewEntries(ctx, js, kv)
	if err != nil {
		return nil, err
	}
	sch := schema{views}
	v := &Engine{reader: view.NewReader(kv, sch), kv: kv, views: views, schema: sch, js: js, store: store,
		entries: entries, gen: gen, log: opts.Logger, opts: opts, health: newHealth(), metrics: newViewMetrics(),
		tally: newTally()}
	return v, nil
}

// checkPresent finds views that went missing while the log holds events:
// no generation recorded (the record of which is current is gone), or the
// recorded generation's bucket gone. A new bucket made for either would
// serve nothing of what the log holds. Over an empty log nothing is lost
// (a first start; in a new cluster, a node may find the generation
// recorded by another before its bucket is made).
func checkPresent(ctx context.Context, js jetstream.JetStream, store *events.Store, gen int, recorded bool) error {
	last, err := store.LastSeq(ctx)
	if err != nil || last == 0 {
		return err
	}
	if recorded {
		return fmt.Errorf("%w: no views generation is recorded, and the log holds %d events", ErrLost, last)
	}
	if _, err := js.KeyValue(ctx, BucketName(gen)); errors.Is(err, jetstream.ErrBucketNotFound) {
		return fmt.Errorf("%w: generation %d's bucket %s is missing", ErrLost, gen, BucketName(gen))
	} else if err != nil {
		return fmt.Errorf("open views bucket %s: %w", BucketName(gen), err)
	}
	return nil
}

// Ahead reports how far the views' checkpoints run past the log's last
// sequence: events the views applied that the log no longer holds, lost in
// a power cut with --sync other than always. New events would take those
// sequences, and views that take them for applied would skip them: views
// ahead must be rebuilt (ErrLost).
func (v *Engine) Ahead(ctx context.Context) (uint64, error) {
	last, err := v.store.LastSeq(ctx)
	if err != nil {
		return 0, err
	}
	var ahead uint64
	for _, part := range v.store.Partitions() {
		cp, err := v.readCheckpoint(ctx, part)
		if err != nil {
			return 0, err
		}
		if cp.Seq > last {
			ahead = max(ahead, cp.Seq-last)
		}
	}
	return ahead, nil
}

// Generation is the views generation this process serves.
func (v *Engine) Generation() int { return v.gen }

// Start starts the watcher (a single node: the observer) and one worker
// per partition. They run until Stop.
func (v *Engine) Start(ctx context.Context) error {
	if err := v.dropOtherGenerations(ctx); err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	start := func() error { return v.startWatcher(ctx, runCtx) }
	if v.opts.Exclusive {
		start = func() error { return v.startObserver(ctx) }
	}
	if err := start(); err != nil {
		cancel()
		v.wg.Wait() // Start may be tried again: nothing of this try may run on
		return err
	}
	for _, part := range v.store.Partitions() {
		cons, err := v.consumer(ctx, part)
		if err == nil && v.opts.Exclusive {
			err = v.resetToCheckpoint(ctx, part)
		}
		if err != nil {
			cancel()
			v.wg.Wait()
			return err
		}
		p := &partition{name: part, st: view.NewKV(v.js, v.entries, BucketName(v.gen), v.schema), log: v.log.With("partition", part)}
		if v.opts.Exclusive {
			p.st.Observe(observer{v})
		}
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			v.work(runCtx, p, cons)
		}()
	}
	if !v.opts.Exclusive {
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			v.watchPassed(runCtx)
		}()
	}
	return nil
}

// Stop stops the workers after the events they are applying, and the watcher.
func (v *Engine) Stop() {
	if v.cancel != nil {
		v.cancel()
	}
	v.wg.Wait()
}

// CaughtUp waits until every partition has applied every event that was in
// the stream when it was called: until each partition's checkpoint reaches
// the partition's newest event.
func (v *Engine) CaughtUp(ctx context.Context) error {
	for _, part := range v.store.Partitions() {
		last, err := v.store.LastSeqOf(ctx, part)
		if err != nil {
			return err
		}
		// Said every 10 s while it lasts: a start that waits on the views
		// shows on what, and how far they are.
		for {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = v.reader.WaitApplied(wctx, events.Ack{Seq: last, Partition: part})
			cancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("views of partition %s did not catch up: %w", part, err)
			}
			v.log.Warn("views: still catching up with the log", "partition", part, "applied", v.reader.Hub().Applied(part), "last", last)
		}
	}
	return nil
}
