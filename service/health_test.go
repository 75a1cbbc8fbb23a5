package service

import (
	"context"
	"net/http"
	"strings"
	"sync"
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

// TestReadinessAsksTheClusterAtMostOnceASecond: /readyz asks the event
// stream's and the views' leaders whether they have a quorum; however many
// clients ask at once, without a key, the node asks them once per second
// at most, and every client gets the answer.
func TestReadinessAsksTheClusterAtMostOnceASecond(t *testing.T) {
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
	url := "http://" + s.httpLn.Addr().String() + "/readyz"
	start := time.Now()
	var wg sync.WaitGroup
	codes := make([]int, 200)
	for i := range codes {
		wg.Go(func() {
			resp, err := http.Get(url)
			if err != nil {
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		})
	}
	wg.Wait()
	took := time.Since(start)
	for i, code := range codes {
		if code != http.StatusOK {
			t.Fatalf("request %d: %d, want 200", i, code)
		}
	}
	s.quorum.mu.Lock()
	asked := s.quorum.asked
	s.quorum.mu.Unlock()
	if most := int(took/quorumFresh) + 1; asked > most {
		t.Errorf("200 readiness probes in %v asked the cluster %d times, want at most %d", took, asked, most)
	}
}
