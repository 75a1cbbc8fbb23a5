package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// TestAStalledNodeHandsItsPartitionsOver: a node paused (SIGSTOP, as a VM
// stalls) for 5, 10 or 30 s hands the projection partitions its workers
// held over to the others' (their pins lapse), and takes its share back
// when it runs again; mail goes on through the other two meanwhile, and
// every message acknowledged, before, during and after the pause, is
// listed on every node within 30 s of the resume, once. Each pause runs
// several times: a 6 s pause once left the views stalled in 1 run of 6,
// and a 30 s pause often left a partition's consumer with events it had
// passed over (projections/engine/passed.go).
// Not parallel: three processes on two cores.
func TestAStalledNodeHandsItsPartitionsOver(t *testing.T) {
	servicetest.Long(t)
	nodes := newCluster(t)
	n1, n2, n3 := nodes[0], nodes[1], nodes[2]
	// The streams' leaders on node 1, so that the pause stalls the views,
	// not the log (a stopped leader stalls every write until another is
	// elected, which the failover tests cover).
	leadEverything(t, n1, n1)
	restarts := map[string]bool{}
	for run, pause := range []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second,
		10 * time.Second, 10 * time.Second, 30 * time.Second} {
		// Inboxes of their own each run, four to a sender, far from
		// the cap on an inbox's messages (a 30 s run sends 4,000 or
		// more), which would evict the oldest.
		inboxes := make([]tokenInbox, 16)
		for i := range inboxes {
			code, body := call(t, "POST", n1.base+"/inboxes/", "{}")
			if code != http.StatusCreated || json.Unmarshal(body, &inboxes[i]) != nil {
				logViews(t, nodes)
				t.Fatalf("run %d: POST /inboxes/: %d %s", run+1, code, body)
			}
		}
		var want []string
		prefix := fmt.Sprintf("r%d", run)
		stop := make(chan struct{})
		var acks atomic.Int64
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 4 {
			via := []*clusterNode{n1, n2}[i%2]
			var addrs []string
			for _, in := range inboxes[4*i : 4*i+4] {
				addrs = append(addrs, in.Address)
			}
			wg.Go(func() {
				s := sendAround(via.smtpAddr, addrs, fmt.Sprintf("%s-%d", prefix, i), stop, &acks)
				mu.Lock()
				want = append(want, s.acked...)
				mu.Unlock()
			})
		}
		before := acks.Load()
		failover(t, "mail flows before the pause", func() bool { return acks.Load() >= before+20 })
		if err := n3.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		<-time.After(pause) // the stall itself: what the scenario is made of
		if err := n3.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		resumed := time.Now()
		during := acks.Load()
		failover(t, "mail flows after the resume", func() bool { return acks.Load() >= during+20 })
		close(stop)
		wg.Wait()
		for _, node := range nodes {
			left := time.Until(resumed.Add(30 * time.Second))
			err := eventually.Poll(max(left, time.Second), func() error { return exactlyOnce(node, inboxes, want, nil) })
			if err != nil {
				describeViews(t, node, inboxes[0].Token)
				logViews(t, nodes)
				t.Fatalf("run %d, a %s pause: %v, %s after the resume", run+1, pause, err, time.Since(resumed).Round(time.Second))
			}
		}
		t.Logf("run %d, a %s pause: %d messages acknowledged, every one on every node %s after the resume",
			run+1, pause, len(want), time.Since(resumed).Round(100*time.Millisecond))
		logRestarts(t, nodes, restarts)
	}
}

// logRestarts logs the nodes' restarts of a consumer that passed over
// events (projections/engine/passed.go) that it has not logged before.
func logRestarts(t *testing.T, nodes []*clusterNode, seen map[string]bool) {
	for _, node := range nodes {
		for _, l := range node.logged() {
			if strings.Contains(l, "passed over events") && !seen[node.name+l] {
				seen[node.name+l] = true
				t.Logf("%s: %s", node.name, l)
			}
		}
	}
}

// logViews logs what the nodes said of their views: warnings, errors and
// lines about the views.
func logViews(t *testing.T, nodes []*clusterNode) {
	t.Helper()
	for _, n := range nodes {
		for _, l := range n.logged() {
			if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") || strings.Contains(l, "views") {
				t.Logf("%s: %s", n.name, l)
			}
		}
	}
}
