package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"tempmail/events"
)

const (
	// cacheBytes bounds the read cache of view entries.
	cacheBytes = 64 << 20

	metaBucket    = "META"
	generationKey = "views"
	consumerPre   = "views-g"
	// ackWait bounds how long a partition's event may be in a worker's hands
	// before the server hands it to another (a worker retrying tells the
	// server it is still at it); tombstoneTTL must outlast it.
	ackWait = 10 * time.Second

	// Every process runs a worker for every partition; the server pins each
	// partition's consumer to one of them (a priority group with the pinned
	// client policy) and moves the pin when that worker has not pulled for
	// pinnedTTL: when its process stopped or died. Pinning is not
	// exclusive for a moment around a move; applying is idempotent.
	priorityGroup = "views"
	pinnedTTL     = 5 * time.Second
)

// Options configures the views of a process.
type Options struct {
	Replicas int // of the views bucket and consumers; 1, or 3 on a cluster
	Logger   *slog.Logger
	// Exclusive says this process is the only one applying events (a single
	// node that holds its data directory). Then Start resets each consumer
	// to just after its checkpoint: an event a killed predecessor held
	// unacknowledged is redelivered at once instead of after the ack wait.
	Exclusive bool
}

// Views is the projection side of one process: it runs a worker per
// partition that applies events to the current generation's bucket, and one
// watcher that feeds the Hub. Its Reader answers the handlers' reads.
type Views struct {
	*Reader
	js    jetstream.JetStream
	store *events.Store
	gen   int
	log   *slog.Logger
	opts  Options

	cancel  context.CancelFunc
	wg      sync.WaitGroup
	applied atomic.Uint64 // events this process's workers have applied
}

// Applied is how many events this process's workers have applied (including
// redeliveries they found already applied): with several processes, which
// share of the work this one does.
func (v *Views) Applied() uint64 { return v.applied.Load() }

// Open creates or opens the current generation of views. It does not start
// the workers; Start does.
func Open(ctx context.Context, js jetstream.JetStream, store *events.Store, opts Options) (*Views, error) {
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
	gen, _, err := currentGeneration(ctx, meta)
	if err != nil {
		return nil, err
	}
	kv, err := viewsBucket(ctx, js, gen, opts.Replicas)
	if err != nil {
		return nil, err
	}
	v := &Views{js: js, store: store, gen: gen, log: opts.Logger, opts: opts,
		Reader: &Reader{kv: kv, hub: NewHub(), parts: store.Partitions()}}
	return v, nil
}

func metaKV(ctx context.Context, js jetstream.JetStream, replicas int) (jetstream.KeyValue, error) {
	return events.OpenKV(ctx, js, jetstream.KeyValueConfig{
		Bucket: metaBucket, Description: "tempmail: which views generation is current",
		History: 1, Storage: jetstream.FileStorage, Replicas: replicas})
}

// currentGeneration reads (or on first start records) the views generation.
func currentGeneration(ctx context.Context, meta jetstream.KeyValue) (int, uint64, error) {
	for {
		e, err := meta.Get(ctx, generationKey)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			rev, err := meta.Create(ctx, generationKey, []byte("1"))
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // another node recorded it first
			}
			if err != nil {
				return 0, 0, fmt.Errorf("record views generation: %w", err)
			}
			return 1, rev, nil
		}
		if err != nil {
			return 0, 0, fmt.Errorf("read views generation: %w", err)
		}
		gen, err := strconv.Atoi(string(e.Value()))
		if err != nil || gen < 1 {
			return 0, 0, fmt.Errorf("views generation %q in KV %s is not a positive number", e.Value(), metaBucket)
		}
		return gen, e.Revision(), nil
	}
}

func bucketName(gen int) string { return "VIEWS_" + strconv.Itoa(gen) }

func viewsBucket(ctx context.Context, js jetstream.JetStream, gen, replicas int) (jetstream.KeyValue, error) {
	return events.OpenKV(ctx, js, jetstream.KeyValueConfig{
		Bucket:      bucketName(gen),
		Description: "tempmail views, generation " + strconv.Itoa(gen),
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		// Enables the per-entry TTL that tombstones use.
		LimitMarkerTTL: time.Second,
	})
}

// Generation is the views generation this process serves.
func (v *Views) Generation() int { return v.gen }

// Start starts the watcher and one worker per partition. They run until Stop.
func (v *Views) Start(ctx context.Context) error {
	if err := v.dropOtherGenerations(ctx); err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	if err := v.startWatcher(ctx, runCtx); err != nil {
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
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			v.work(runCtx, newKVStore(v.js, v.kv), part, cons)
		}()
	}
	return nil
}

// Stop stops the workers after the events they are applying, and the watcher.
func (v *Views) Stop() {
	if v.cancel != nil {
		v.cancel()
	}
	v.wg.Wait()
}

// CaughtUp waits until every partition has applied every event that was in
// the stream when it was called.
func (v *Views) CaughtUp(ctx context.Context) error {
	for _, part := range v.store.Partitions() {
		cons, err := v.js.Consumer(ctx, events.StreamName, v.consumerName(part))
		if err != nil {
			return err
		}
		for {
			info, err := cons.Info(ctx)
			if err != nil {
				return err
			}
			if info.NumPending == 0 && info.NumAckPending == 0 {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("views of partition %s did not catch up: %w", part, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}

func (v *Views) consumerName(part string) string {
	return consumerPre + strconv.Itoa(v.gen) + "-" + part
}

// consumer returns the partition's durable consumer, creating it to start
// after the partition's checkpoint: a rebuilt generation starts where its
// replay ended, a new one from the beginning.
func (v *Views) consumer(ctx context.Context, part string) (jetstream.Consumer, error) {
	name := v.consumerName(part)
	cons, err := v.js.Consumer(ctx, events.StreamName, name)
	if err == nil && slices.Contains(cons.CachedInfo().Config.PriorityGroups, priorityGroup) {
		return cons, nil
	}
	if err == nil {
		// Made by a version without priority groups, which a consumer
		// cannot gain: start it again from the checkpoint.
		if err := v.js.DeleteConsumer(ctx, events.StreamName, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return nil, fmt.Errorf("replace consumer %s: %w", name, err)
		}
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, fmt.Errorf("look up consumer %s: %w", name, err)
	}
	cp, err := v.checkpoint(ctx, part)
	if err != nil {
		return nil, err
	}
	cfg := jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "tempmail views, partition " + part,
		FilterSubject: events.PartitionFilter(part),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		// One event in flight: a partition is applied strictly in order,
		// also across redeliveries.
		MaxAckPending:  1,
		MaxDeliver:     -1,
		Replicas:       v.opts.Replicas,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
		PriorityPolicy: jetstream.PriorityPolicyPinned,
		PriorityGroups: []string{priorityGroup},
		PinnedTTL:      pinnedTTL,
	}
	if cp > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, cp+1
	}
	cons, err = v.js.CreateConsumer(ctx, events.StreamName, cfg)
	if errors.Is(err, jetstream.ErrConsumerExists) {
		return v.js.Consumer(ctx, events.StreamName, name)
	}
	if err != nil {
		return nil, fmt.Errorf("create consumer %s: %w", name, err)
	}
	return cons, nil
}

func (v *Views) resetToCheckpoint(ctx context.Context, part string) error {
	cp, err := v.checkpoint(ctx, part)
	if err != nil {
		return err
	}
	if _, err := v.js.ResetConsumerToSequence(ctx, events.StreamName, v.consumerName(part), cp+1); err != nil {
		return fmt.Errorf("reset consumer %s: %w", v.consumerName(part), err)
	}
	return nil
}

// dropOtherGenerations deletes consumers of views generations other than
// ours, left behind by a rebuild.
func (v *Views) dropOtherGenerations(ctx context.Context) error {
	mine := consumerPre + strconv.Itoa(v.gen) + "-"
	names := v.store.Stream().ConsumerNames(ctx)
	var stale []string
	for name := range names.Name() {
		if strings.HasPrefix(name, consumerPre) && !strings.HasPrefix(name, mine) {
			stale = append(stale, name)
		}
	}
	if err := names.Err(); err != nil {
		return fmt.Errorf("list consumers: %w", err)
	}
	for _, name := range stale {
		if err := v.js.DeleteConsumer(ctx, events.StreamName, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return fmt.Errorf("delete stale consumer %s: %w", name, err)
		}
	}
	return nil
}

// work applies a partition's events one at a time, while the server has it
// pinned to this worker, until ctx ends.
func (v *Views) work(ctx context.Context, st viewStore, part string, cons jetstream.Consumer) {
	log := v.log.With("partition", part)
	var cp checkpointer
	pinned := false // this worker has received events, so it may hold the pin
	defer func() {
		if pinned {
			v.unpin(part)
		}
	}()
	// After a reconnection (an external server restarted) the iterator's
	// pulls are gone with the old connection, and it would notice only when
	// heartbeats fail to come; a fresh one pulls at once.
	reconnected := v.js.Conn().StatusChanged(nats.CONNECTED)
	defer v.js.Conn().RemoveStatusListener(reconnected)
	for ctx.Err() == nil {
		it, err := cons.Messages(v.pullOptions()...)
		if err != nil {
			log.Warn("views: cannot consume; retrying", "err", err)
			sleep(ctx, time.Second)
			continue
		}
		restart := make(chan struct{})
		go func() {
			select {
			case <-reconnected:
				log.Debug("views: connection restored; pulling again")
				it.Stop()
			case <-restart:
			}
		}()
		// Stopping drains: an event already delivered is applied and
		// acknowledged, not left to the ack wait of whoever takes over.
		pinned = false
		stop := context.AfterFunc(ctx, it.Drain)
		for {
			msg, err := it.Next()
			if err != nil {
				switch {
				case errors.Is(err, jetstream.ErrMsgIteratorClosed):
				case errors.Is(err, jetstream.ErrNoHeartbeat):
					// What a worker that is not pinned sees: the server
					// holds its pulls without heartbeats.
					log.Debug("views: waiting for the partition", "err", err)
				default:
					log.Warn("views: consumer interrupted; resuming", "err", err)
				}
				break
			}
			pinned = true
			v.handle(ctx, st, part, msg, &cp, log)
		}
		stop()
		it.Stop()
		close(restart)
	}
}

// checkpointer spaces out a partition's checkpoint writes under load: one
// when the partition has caught up, and at least every checkpointEvery while
// events keep coming. Commands wait on checkpoints, so the bound is also
// the most a command waits beyond its own event's application.
type checkpointer struct {
	written time.Time
}

const checkpointEvery = 20 * time.Millisecond

func (c *checkpointer) due(md *jetstream.MsgMetadata) bool {
	return md.NumPending == 0 || time.Since(c.written) >= checkpointEvery
}

// handle applies one event, retrying until it is applied or the worker
// stops; it never skips ahead, because a later event must not be applied
// before an earlier one of the same partition.
func (v *Views) handle(ctx context.Context, st viewStore, part string, msg jetstream.Msg, cp *checkpointer, log *slog.Logger) {
	md, err := msg.Metadata()
	if err != nil {
		log.Error("views: message without metadata", "err", err)
		return
	}
	seq := md.Sequence.Stream
	p, _, err := events.Decode(msg.Data())
	if err != nil {
		// A newer schema or a corrupt event: stop this partition (by not
		// acknowledging) and say so, rather than building wrong views.
		log.Error("views: cannot decode event; partition halted until a build that reads it runs", "seq", seq, "err", err)
		_ = msg.NakWithDelay(30 * time.Second)
		return
	}
	for attempt := 0; ; attempt++ {
		// In-flight work finishes on shutdown: the event's writes are not
		// cut off by ctx, only bounded in time.
		actx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err = withContent(actx, v.store, p)
		if err == nil {
			err = apply(actx, st, seq, p)
		}
		if err == nil {
			// The views no longer show what a deletion removed; now the
			// log and the object store let go of it too.
			err = v.store.Purge(actx, msg.Subject(), p)
		}
		if err == nil && cp.due(md) {
			if err = v.putCheckpoint(actx, part, seq); err == nil {
				cp.written = time.Now()
			}
		}
		cancel()
		if err == nil {
			break
		}
		if !errors.Is(err, errConflict) {
			v.store.CountError("apply")
			log.Warn("views: applying event failed; retrying", "seq", seq, "type", p.EventType(), "err", err)
		}
		if !sleep(ctx, backoff(attempt)) {
			return // stopping; the event will be redelivered
		}
		_ = msg.InProgress() // still ours: no redelivery while we retry
	}
	v.applied.Add(1)
	if err := msg.Ack(); err != nil {
		log.Debug("views: ack failed; the event will be redelivered and skipped", "seq", seq, "err", err)
	}
}

// pullOptions are a worker's pull requests. The server keeps a partition
// pinned to a worker only while it keeps asking within pinnedTTL; the
// client library's default (a pull every 30 s when idle) would let the pin
// wander between live processes every few seconds. A single node has no
// one to hand over to, and saves the traffic.
func (v *Views) pullOptions() []jetstream.PullMessagesOpt {
	opts := []jetstream.PullMessagesOpt{jetstream.PullPriorityGroup(priorityGroup)}
	if !v.opts.Exclusive {
		opts = append(opts, jetstream.PullExpiry(pinnedTTL/2))
	}
	return opts
}

// unpin lets another process's worker take a partition over at once, rather
// than after pinnedTTL, when this one stops.
func (v *Views) unpin(part string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := v.store.Stream().UnpinConsumer(ctx, v.consumerName(part), priorityGroup); err != nil {
		v.log.Debug("views: unpin on stop failed; another worker takes over after the pinned TTL", "partition", part, "err", err)
	}
}

func (v *Views) putCheckpoint(ctx context.Context, part string, seq uint64) error {
	data, _ := json.Marshal(Checkpoint{Meta{Seq: seq}})
	if _, err := v.kv.Put(ctx, checkpointKey(part), data); err != nil {
		return unavailable(err)
	}
	return nil
}

func (v *Views) checkpoint(ctx context.Context, part string) (uint64, error) {
	var cp Checkpoint
	if _, _, err := newKVStore(v.js, v.kv).get(ctx, checkpointKey(part), &cp); err != nil {
		return 0, err
	}
	return cp.Seq, nil
}

// startWatcher starts the process's one watcher: checkpoints and inbox
// changes become Hub notifications, and every write keeps the read cache
// current.
func (v *Views) startWatcher(ctx, runCtx context.Context) error {
	w, err := v.kv.WatchAll(runCtx, jetstream.UpdatesOnly())
	if err != nil {
		return fmt.Errorf("watch views: %w", err)
	}
	v.Reader.cache = newCache(cacheBytes)
	// A watcher is a consumer on the server; a reconnection (an external
	// server restarted) loses it, and the client library would notice only
	// when its heartbeats stop coming, seconds later, while the cache
	// answered from what it had. So a reconnection restarts it at once.
	reconnected := v.js.Conn().StatusChanged(nats.CONNECTED)
	// Likewise when the views bucket elects a new leader in a cluster: the
	// watcher's consumer lived with the old one.
	elected := make(chan *nats.Msg, 1)
	sub, err := v.js.Conn().ChanSubscribe("$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.KV_"+bucketName(v.gen), elected)
	if err != nil {
		_ = w.Stop()
		return fmt.Errorf("watch views: %w", err)
	}
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		defer v.js.Conn().RemoveStatusListener(reconnected)
		defer func() { _ = sub.Unsubscribe() }()
		var last uint64 // revision of the newest write seen
		for {
			select {
			case e, ok := <-w.Updates():
				if ok && e != nil {
					last = e.Revision()
					v.watched(e)
				}
				if ok {
					continue
				}
			case <-reconnected:
			case <-elected:
			case <-runCtx.Done():
				_ = w.Stop()
				return
			}
			_ = w.Stop()
			if w = v.rewatch(runCtx, last); w == nil {
				return
			}
		}
	}()
	return v.primeCheckpoints(ctx)
}

// watched applies one write seen by the watcher.
func (v *Views) watched(e jetstream.KeyValueEntry) {
	key := e.Key()
	if e.Operation() != jetstream.KeyValuePut {
		v.cache.update(key, nil)
		return
	}
	v.cache.update(key, e.Value())
	if part, ok := strings.CutPrefix(key, "c."); ok {
		var cp Checkpoint
		if json.Unmarshal(e.Value(), &cp) == nil {
			v.hub.checkpoint(part, cp.Seq)
		}
		return
	}
	v.hub.notify(key)
}

// rewatch starts the watcher again just after the last write it saw, so
// that it misses none; it returns nil once ctx ends.
func (v *Views) rewatch(ctx context.Context, last uint64) jetstream.KeyWatcher {
	for {
		opt := jetstream.ResumeFromRevision(last + 1)
		if last == 0 {
			// Nothing seen yet: start afresh, and forget what the cache
			// holds, which nothing kept current meanwhile.
			opt = jetstream.UpdatesOnly()
			v.cache.clear()
		}
		w, err := v.kv.WatchAll(ctx, opt)
		if err == nil && last == 0 {
			err = v.primeCheckpoints(ctx)
		}
		if err == nil {
			v.log.Debug("views: watcher restarted", "from_revision", last+1)
			return w
		}
		if w != nil {
			_ = w.Stop()
		}
		v.log.Warn("views: cannot watch the views; retrying", "err", err)
		if !sleep(ctx, time.Second) {
			return nil
		}
	}
}

// primeCheckpoints reads the checkpoints a watcher started too late to see.
func (v *Views) primeCheckpoints(ctx context.Context) error {
	for _, part := range v.store.Partitions() {
		seq, err := v.checkpoint(ctx, part)
		if err != nil {
			return err
		}
		v.hub.checkpoint(part, seq)
	}
	return nil
}

// withContent joins a MailReceived read from the log with its content, which
// is stored beside it (events.Content). A deleted message has none left; its
// views are removed by the Deleted that follows, so the result is the same.
func withContent(ctx context.Context, store *events.Store, p events.Payload) error {
	if m, ok := p.(*events.MailReceived); ok && m.Content.Raw == nil && m.Subject == "" {
		return store.Content(ctx, m)
	}
	return nil
}

func backoff(attempt int) time.Duration {
	d := 10 * time.Millisecond << min(attempt, 7)
	return min(d, time.Second)
}

// sleep waits for d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// LagCollector reports, at each scrape, how many events each partition has
// yet to apply: those pending in its consumer and those in flight.
func (v *Views) LagCollector() prometheus.Collector { return lagCollector{v} }

type lagCollector struct{ v *Views }

var lagDesc = prometheus.NewDesc("tempmail_projection_lag_events",
	"Events stored but not yet applied to the views, by partition.", []string{"partition"}, nil)

func (c lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- lagDesc }

func (c lagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, part := range c.v.store.Partitions() {
		cons, err := c.v.js.Consumer(ctx, events.StreamName, c.v.consumerName(part))
		if err != nil {
			continue
		}
		info, err := cons.Info(ctx)
		if err != nil {
			continue
		}
		ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue,
			float64(info.NumPending+uint64(info.NumAckPending)), part)
	}
}
