package backend

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

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
	return projections.Rebuild(ctx, b.Node.JS, b.Store, projections.Options{Logger: log, Replicas: cfg.Replicas,
		Rules: rules(cfg)})
}
