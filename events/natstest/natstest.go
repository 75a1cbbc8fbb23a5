package natstest

import (
	"context"
	"testing"
	"time"

	"tempmail/events"
)

// StartNode starts an embedded node storing its data in dir (use t.TempDir()
// to start fresh, or the same dir again to restart on existing data). The
// node is closed when the test ends.
func StartNode(t testing.TB, dir string) *events.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := events.StartNode(ctx, events.NodeConfig{DataDir: dir})
	if err != nil {
		t.Fatalf("start embedded NATS: %v", err)
	}
	t.Cleanup(func() { Stop(n) })
	return n
}

// Stop closes a node; calling it twice is harmless.
func Stop(n *events.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n.Close(ctx)
}

// OpenStore opens the event store on a node.
func OpenStore(t testing.TB, n *events.Node) *events.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := events.OpenStore(ctx, n.JS, events.StoreConfig{})
	if err != nil {
		t.Fatalf("open event store: %v", err)
	}
	return s
}
