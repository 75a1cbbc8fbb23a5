package service

import (
	"context"
	"log/slog"

	"tempmail/backend"
	"tempmail/config"
	"tempmail/projections"
)

// Rebuild replays the log into fresh views, which the service serves from
// its next start (backend.Rebuild). On a single node it holds the data
// directory's lock throughout, so it refuses to run beside a server.
func Rebuild(ctx context.Context, cfg config.Config, log *slog.Logger) (projections.RebuildResult, error) {
	return backend.Rebuild(ctx, cfg, log)
}

// ErrStoreLost says a data directory's store cannot be read
// (backend.ErrStoreLost): Start refuses to serve it.
type ErrStoreLost = backend.ErrStoreLost
