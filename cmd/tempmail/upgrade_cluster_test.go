package main

import (
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/service/servicetest"
)

// TestClusterUpgradeRebuildsTheViewsOneNodeAtATime walks the upgrade of a
// cluster that README ("Upgrading") and docs/DEPLOY.md ("Upgrades and
// tempmail rebuild") describe, for a release whose views the running one
// wrote in a layout it does not read: one node at a time, the other two
// serving. The node upgraded first does not start over such views, and
// says to rebuild them; `tempmail rebuild` with that node's configuration
// runs while the other two run (a cluster's streams need a majority, so
// it could not run with all three stopped); the node then starts and
// serves everything the log holds, mail that came meanwhile included;
// the other two, started again one after the other, serve the same.
// Mail sent to the cluster meanwhile is all there, once. Not parallel:
// three processes on two cores.
func TestClusterUpgradeRebuildsTheViewsOneNodeAtATime(t *testing.T) {
	servicetest.Long(t)
	nodes := clusterNodes(t)
	for _, n := range nodes {
		// Room for all the mail the test sends to its one inbox.
		n.args = append(n.args, "--max-messages-per-inbox", "100000")
	}
	startCluster(t, nodes)
	n1, n2, n3 := nodes[0], nodes[1], nodes[2]
	in := createTokenInbox(t, n1.base)
	send := func(via *clusterNode, subject string) {
		t.Helper()
		body := "From: s@example.com\r\nTo: " + in.Address + "\r\nSubject: " + subject + "\r\n\r\nhello\r\n"
		failover(t, subject+" through "+via.name, func() bool {
			return servicetest.TrySend(via.smtpAddr, "s@example.com", in.Address, body) == nil
		})
	}
	send(n2, "before")

	// The running release wrote its views in a layout the next does not
	// read: the cluster records the layout, which a process reads as it
	// starts.
	nc, err := nats.Connect(n1.natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := js.KeyValue(t.Context(), "META")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := meta.Put(t.Context(), "views-format", []byte("2")); err != nil {
		t.Fatal(err)
	}

	// Node 1 is stopped and started again (the new release): it does not
	// start, and says what to do.
	stopNode(t, n1)
	err = n1.start(t)
	if err == nil || !strings.Contains(err.Error(), "must be rebuilt from the log") ||
		!strings.Contains(err.Error(), "run `tempmail rebuild` with this process's configuration while the others run") {
		t.Fatalf("node 1 over views of an earlier layout: %v, want a refusal that says how to rebuild them", err)
	}
	send(n2, "while node 1 is down")
	// Mail goes on through node 3 while node 1 is rebuilt.
	stopSending := make(chan struct{})
	done := make(chan sent)
	var acks atomic.Int64
	go func() { done <- sendUntil(n3.smtpAddr, in.Address, "during", stopSending, &acks) }()
	failover(t, "mail through node 3 while node 1 is down", func() bool { return acks.Load() > 0 })

	// tempmail rebuild, with node 1's configuration, while 2 and 3 run.
	args := []string{"rebuild", "--data-dir", n1.dir}
	for i := 0; i < len(n1.args); i += 2 {
		if n1.args[i] != "--smtp-rate-per-ip" { // serve's alone
			args = append(args, n1.args[i], n1.args[i+1])
		}
	}
	out, err := exec.Command(binary, args...).CombinedOutput()
	close(stopSending)
	during := <-done
	if err != nil || !strings.Contains(string(out), "rebuilt views generation 2") {
		t.Fatalf("tempmail rebuild with node 1's configuration: %v\n%s", err, out)
	}
	if err := n1.start(t); err != nil {
		t.Fatal(err)
	}
	want := append([]string{"before", "while node 1 is down"}, during.acked...)
	holds(t, n1, in.Token, want, during.unsure)
	// The nodes not yet upgraded can no longer read the views, which the
	// rebuild replaced: they answer 503 until they are started again.
	code, body := call(t, "GET", n2.base+"/inboxes/"+in.Token+"/messages/", "")
	if code != http.StatusServiceUnavailable {
		t.Errorf("node 2, not yet started again, answers %d %s; want 503", code, body)
	}

	for _, n := range []*clusterNode{n2, n3} {
		stopNode(t, n)
		if err := n.start(t); err != nil {
			t.Fatal(err)
		}
	}
	send(n3, "after")
	for _, n := range nodes {
		holds(t, n, in.Token, append(want, "after"), during.unsure)
	}
	t.Logf("%d messages acknowledged by node 3 while node 1 was rebuilt, %d unsure", len(during.acked), len(during.unsure))
}

// stopNode stops a node as its service manager does, and waits for it.
func stopNode(t *testing.T, n *clusterNode) {
	t.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = n.cmd.Wait()
}

// holds waits until a node lists the inbox's messages with the subjects
// want, each once, and maybe (a message whose 250 the sender never got)
// at most once, and no others.
func holds(t *testing.T, n *clusterNode, token string, want, maybe []string) {
	t.Helper()
	failover(t, fmt.Sprintf("%s lists the %d messages acknowledged", n.name, len(want)), func() bool {
		seen, err := subjects(n.base, token)
		if err != nil {
			return false
		}
		for _, s := range want {
			if seen[s] != 1 {
				return false
			}
		}
		for s, k := range seen {
			if !slices.Contains(want, s) && (!slices.Contains(maybe, s) || k != 1) {
				t.Errorf("%s lists %s %d times", n.name, s, k)
			}
		}
		return true
	})
}
