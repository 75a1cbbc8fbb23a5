package natstest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"tempmail/broker"
)

// StartNode starts an embedded node storing its data in dir (use t.TempDir()
// to start fresh, or the same dir again to restart on existing data). The
// node is closed when the test ends.
func StartNode(t testing.TB, dir string) *broker.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := broker.StartNode(ctx, broker.NodeConfig{DataDir: dir})
	if err != nil {
		t.Fatalf("start embedded NATS: %v", err)
	}
	t.Cleanup(func() { Stop(n) })
	return n
}

// Stop closes a node; calling it twice is harmless.
func Stop(n *broker.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n.Close(ctx)
}

// StartServer runs a standalone JetStream server with a client listener on
// a loopback port, storing its data in dir: what an external NATS looks
// like to the service (--nats-url), without the process. It stops at the
// end of the test.
func StartServer(t testing.TB, dir string) (ns *server.Server, url string) {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: dir, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server did not start")
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns, ns.ClientURL()
}
