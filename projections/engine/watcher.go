package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/projections/view"
	"tempmail/retry"
)

// startWatcher starts the process's one watcher: checkpoints and inbox
// changes become Hub notifications, and every write keeps the read cache
// current.
func (v *Engine) startWatcher(ctx, runCtx context.Context) error {
	w, err := v.kv.WatchAll(runCtx, jetstream.UpdatesOnly())
	if err != nil {
		return fmt.Errorf("watch views: %w", err)
	}
	v.reader.EnableCache()
	// A watcher is a consumer on the server; a reconnection (an external
	// server restarted) loses it, and the client library would notice only
	// when its heartbeats stop coming, seconds later, while the cache
	// answered from what it had. So a reconnection restarts it at once.
	reconnected := v.js.Conn().StatusChanged(nats.CONNECTED)
	// Likewise when the views bucket elects a new leader in a cluster: the
	// watcher's consumer lived with the old one.
	elected := make(chan *nats.Msg, 1)
	sub, err := v.js.Conn().ChanSubscribe("$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.KV_"+BucketName(v.gen), elected)
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
				// Stopping deletes the watcher's consumer on the server;
				// without a connection that waits for the request's
				// timeout, and closing the connection ends it anyway.
				if v.js.Conn().IsConnected() {
					_ = w.Stop()
				}
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
func (v *Engine) watched(e jetstream.KeyValueEntry) {
	if e.Operation() != jetstream.KeyValuePut {
		v.reader.Seen(e.Key(), nil, e.Revision())
		return
	}
	v.stored(e.Key(), e.Value(), e.Revision())
}

// stored applies one value written to the views: the cache takes it, a
// checkpoint's moves its partition on, any other wakes its entry's topic
// (view.EntryTopic).
func (v *Engine) stored(key string, value []byte, rev uint64) {
	v.reader.Seen(key, value, rev)
	if part, ok := partitionOf(key); ok {
		var cp view.Checkpoint
		if json.Unmarshal(value, &cp) == nil {
			v.tally.set(part, cp)
			v.reader.Hub().Checkpoint(part, cp.Seq)
		}
		return
	}
	v.reader.Hub().Notify(view.EntryTopic(key))
}

// observer is what a single node has in the watcher's place: its workers
// are the views' only writers, and tell what they stored themselves. A
// watcher would have the server deliver every view write back to the
// process, about a twentieth of ingest's CPU, for what the writer already
// knows. The values that expire by themselves (tombstones, after
// view.TombstoneTTL) stay in the cache as the tombstones they were, which
// read as absent all the same.
type observer struct{ v *Engine }

func (o observer) Stored(key string, value []byte, rev uint64) { o.v.stored(key, value, rev) }

// Lost empties the cache, which refills from the bucket as reads come.
func (o observer) Lost() { o.v.reader.DropCache() }

// startObserver is startWatcher for a single node (observer).
func (v *Engine) startObserver(ctx context.Context) error {
	v.reader.EnableCache()
	return v.primeCheckpoints(ctx)
}

// partitionOf names the partition whose checkpoint key is, if it is one.
func partitionOf(key string) (string, bool) {
	return strings.CutPrefix(key, view.CheckpointKey(""))
}

// rewatch starts the watcher again just after the last write it saw, so
// that it misses none; it returns nil once ctx ends.
func (v *Engine) rewatch(ctx context.Context, last uint64) jetstream.KeyWatcher {
	for {
		opt := jetstream.ResumeFromRevision(last + 1)
		if last == 0 {
			// Nothing seen yet: start afresh, and forget what the cache
			// holds, which nothing kept current meanwhile.
			opt = jetstream.UpdatesOnly()
			v.reader.DropCache()
		}
		w, err := v.kv.WatchAll(ctx, opt)
		if err == nil && last == 0 {
			err = v.primeCheckpoints(ctx)
		}
		if err == nil {
			v.health.ok(watcherComponent)
			v.log.Debug("views: watcher restarted", "from_revision", last+1)
			return w
		}
		v.health.fail(watcherComponent, false)
		if w != nil {
			_ = w.Stop()
		}
		v.log.Warn("views: cannot watch the views; retrying", "err", err)
		if !retry.Resume.Sleep(ctx, 0) {
			return nil
		}
	}
}

// primeCheckpoints reads the checkpoints a watcher started too late to see.
func (v *Engine) primeCheckpoints(ctx context.Context) error {
	for _, part := range v.store.Partitions() {
		cp, err := v.readCheckpoint(ctx, part)
		if err != nil {
			return err
		}
		v.tally.set(part, cp)
		v.reader.Hub().Checkpoint(part, cp.Seq)
	}
	return nil
}
