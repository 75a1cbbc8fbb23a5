package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"tempmail/config"
)

// TestAListenerThatStopsStopsTheService: a listener that stops serving is
// fatal, so that the supervisor starts the process again, rather than the
// service living on without it.
func TestAListenerThatStopsStopsTheService(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.DataDir, cfg.HTTPAddr, cfg.SMTPAddr, cfg.AuthChecks = t.TempDir(), "127.0.0.1:0", "127.0.0.1:0", false
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, cfg, Options{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
		defer cancel()
		s.Shutdown(sctx)
	})

	s.httpLn.Close()
	select {
	case err := <-s.Fatal():
		if !strings.Contains(err.Error(), "HTTP listener") {
			t.Errorf("the service stopped for %q, want its HTTP listener", err)
		}
	case <-ctx.Done():
		t.Fatal("the service went on without its HTTP listener")
	}
}
