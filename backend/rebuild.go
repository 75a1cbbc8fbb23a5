package backend

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"tempmail/config"
	"tempmail/projections"
)

// Rebuild replays the log into fresh views, which the service serves from
// its next start. On a single node it holds the data directory's lock
// throughout, so it refuses to run beside a server.
func Rebuild(ctx context.Context, cfg config.Config, log *slog.Logger) (projections.RebuildResult, error) {
	if cfg.NATSURL == "" {
		if _, err := os.Stat(filepath.Join(cfg.DataDir, "nats")); err != nil {
			return projections.RebuildResult{}, fmt.Errorf("no event store in %s: nothing to rebuild", cfg.DataDir)
		}
	} else {
		log.Warn("rebuild against an external NATS: restart every tempmail process afterwards, so that they serve the new views")
	}
	if cfg.ClusterName != "" {
		log.Warn("rebuild in a cluster: restart every other node afterwards, so that they serve the new views")
	}
	b := newBackend(cfg, Options{Logger: log})
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
		defer cancel()
		b.Shutdown(sctx)
	}()
	if err := b.openStore(ctx); err != nil {
		return projections.RebuildResult{}, err
	}
	if cfg.MemoryLimit > 0 {
		fitMemoryLimit(cfg.MemoryLimit, log)
	}
	return projections.Rebuild(ctx, b.Node.JS, b.Store, projections.Options{Logger: log, Replicas: cfg.Replicas,
		Rules: rules(cfg)})
}

// replayHeadroom is what a rebuild's soft memory limit leaves for the
// replay: its working set (32 MiB of entries as the views hold them, and
// their writes in flight), the blocks the server is reading and the
// subject state it keeps of those it read, and room for the collector to
// work in.
const replayHeadroom = 128 << 20

// fitMemoryLimit raises the process's soft memory limit (limit, which the
// command set) to twice what the opened store holds live, plus
// replayHeadroom, if that is more. A rebuild's low default fits a single
// node's store, whose server indexes its streams' subjects in a few MiB
// (11 MiB live at the start of the benchmark's rebuilds); but a store
// whose server indexes many more (in a cluster, the stream of message
// keys, a subject per message: 111 MiB for 1,000,000 messages) holds that
// all through the replay, and a limit close to its live heap has the
// collector run without end: what the collector would leave it by its own
// ratio (GOGC's 100%), and the replay's room besides.
func fitMemoryLimit(limit int64, log *slog.Logger) {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := int64(s[0].Value.Uint64())
	if need := 2*live + replayHeadroom; need > limit {
		debug.SetMemoryLimit(need)
		log.Info("rebuild: the opened store holds more than the memory limit leaves room for; limit raised",
			"live_MiB", live>>20, "limit_MiB", need>>20)
	}
}
