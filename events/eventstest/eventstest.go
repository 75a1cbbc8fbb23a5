package eventstest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"tempmail/broker"
	"tempmail/events"
)

// OpenStore opens the event store on a node as a single node's service
// does: message keys in a file in its data directory (in the KEYS stream
// for a node without one). It is closed at the end of the test.
func OpenStore(t testing.TB, n *broker.Node) *events.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := events.StoreConfig{}
	if n.DataDir != "" {
		cfg.KeyDir = filepath.Join(n.DataDir, "keys")
	}
	s, err := events.OpenStore(ctx, n.JS, cfg)
	if err != nil {
		t.Fatalf("open event store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
