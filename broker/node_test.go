package broker_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"tempmail/broker"
)

// A node whose route or client port another process holds fails at once,
// saying which port, rather than waiting out the 30s it gives a server
// to open its listeners.
func TestStartNodeSaysWhichPortIsTaken(t *testing.T) {
	t.Parallel()
	for _, which := range []string{"route", "client"} {
		t.Run(which, func(t *testing.T) {
			t.Parallel()
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			free, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			route, listen := taken.Addr().String(), free.Addr().String()
			if which == "client" {
				route, listen = listen, route
			}
			free.Close()
			cfg := broker.NodeConfig{DataDir: t.TempDir(), Listen: listen,
				Cluster: broker.ClusterConfig{Name: "c", ServerName: "n1", Addr: route, Routes: []string{"nats://" + route}}}
			node, err := broker.StartNode(context.Background(), cfg)
			if err == nil {
				node.Close(context.Background())
				t.Fatalf("a node on a taken %s port started", which)
			}
			if !strings.Contains(err.Error(), taken.Addr().String()) || !strings.Contains(err.Error(), "address already in use") {
				t.Errorf("the error does not name the taken port %s: %v", taken.Addr(), err)
			}
		})
	}
}
