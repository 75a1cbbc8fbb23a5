package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"tempmail/broker/natstest"
	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// TestClusterUnderFaults runs a three-node cluster whose routes all go
// through proxies the test controls (natstest.RouteProxy), with senders on
// every node that resend the same bytes after a 4xx as an MTA does, and
// readiness polled on every node, through faults: the stream leader or a
// follower cut off (its traffic dropped), the leader paused, a node paused
// for 30 s, the leader's links flapping, a node killed while cut off.
// After each heal, every acknowledged message is listed on every node
// exactly once, a message never acknowledged at most once, no live inbox
// was refused with a 5xx, and /readyz said 503 on the node cut off and
// 200 again on every node once healed.
//
// Each scenario runs TEMPMAIL_FAULT_RUNS times (default 1) on its own
// cluster (TEMPMAIL_FAULT_DEBUG=1: the nodes log at debug, which a failure
// shows); every run logs what it measured: acknowledged, never
// acknowledged, 5xx, the write gap, the time to converge, reads refused,
// and each node's readiness over time. Not parallel: three processes on
// two cores.
func TestClusterUnderFaults(t *testing.T) {
	servicetest.Long(t)
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("TEMPMAIL_FAULT_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for _, sc := range faultScenarios {
		t.Run(sc.name, func(t *testing.T) {
			fc := newFaultCluster(t)
			for run := range runs {
				fc.run(t, run+1, sc)
			}
		})
	}
}

// scenario is one kind of fault: apply does it to the cluster and returns
// once healed, saying which node it cut off (nil: none), and when.
type scenario struct {
	name  string
	apply func(t *testing.T, fc *faultCluster) (cut *clusterNode, from, healed time.Time)
}

var faultScenarios = []scenario{
	{"the stream leader cut off for 20s", func(t *testing.T, fc *faultCluster) (*clusterNode, time.Time, time.Time) {
		return fc.isolate(t, fc.leader(t), natstest.Drop, 20*time.Second)
	}},
	{"a follower cut off for 20s", func(t *testing.T, fc *faultCluster) (*clusterNode, time.Time, time.Time) {
		return fc.isolate(t, fc.follower(t), natstest.Drop, 20*time.Second)
	}},
	{"the stream leader paused for 6s", func(t *testing.T, fc *faultCluster) (*clusterNode, time.Time, time.Time) {
		from := time.Now()
		fc.pause(t, fc.leader(t), 6*time.Second)
		return nil, from, time.Now()
	}},
	{"a follower paused for 30s", func(t *testing.T, fc *faultCluster) (*clusterNode, time.Time, time.Time) {
		from := time.Now()
		fc.pause(t, fc.follower(t), 30*time.Second)
		return nil, from, time.Now()
	}},
	{"the stream leader's links flapping every 2s for 30s", func(t *testing.T, fc *faultCluster) (*clusterNode, time.Time, time.Time) {
		node := fc.leader(t)
		from := time.Now()
		for time.Since(from) < 30*time.Second {
			fc.set(node, natstest.Refuse)
			<-time.After(2 * time.Second) // the fault's rhythm
			fc.set(node, natstest.Heal)
			<-time.After(2 * time.Second)
		}
		return nil, from, time.Now()
	}},
	{"the stream leader killed while cut off", func(t *testing.T, fc *faultCluster) (*clusterNode, time.Time, time.Time) {
		node := fc.leader(t)
		from := time.Now()
		fc.set(node, natstest.Drop)
		<-time.After(5 * time.Second) // cut off, then killed
		_ = node.cmd.Process.Kill()
		_ = node.cmd.Wait()
		<-time.After(10 * time.Second)
		fc.set(node, natstest.Heal)
		healed := time.Now()
		if err := node.start(t); err != nil {
			t.Fatal(err)
		}
		return nil, from, healed
	}},
}

// faultCluster is three nodes whose route listeners each sit behind a
// RouteProxy: every node's --routes names the proxies, and each node
// advertises its own, so no route goes around them.
type faultCluster struct {
	nodes   []*clusterNode
	proxies []*natstest.RouteProxy
}

func newFaultCluster(t *testing.T) *faultCluster {
	t.Helper()
	addrs := freeAddrs(t, 6)
	fc := &faultCluster{}
	var routes []string
	for i := range 3 {
		p := natstest.StartRouteProxy(t, addrs[2*i])
		fc.proxies = append(fc.proxies, p)
		routes = append(routes, "nats://"+p.Addr())
	}
	for i := range 3 {
		n := &clusterNode{name: fmt.Sprintf("n%d", i+1), dir: t.TempDir(), natsURL: "nats://" + addrs[2*i+1]}
		n.args = []string{"--server-name", n.name, "--cluster-name", "tmtest", "--cluster-addr", addrs[2*i],
			"--cluster-advertise", fc.proxies[i].Addr(), "--routes", strings.Join(routes, ","),
			"--nats-listen", addrs[2*i+1], "--replicas", "3", "--smtp-rate-per-ip", "0", "--create-rate-per-client", "0"}
		if os.Getenv("TEMPMAIL_FAULT_DEBUG") != "" {
			n.args = append(n.args, "--log-level", "debug")
		}
		fc.nodes = append(fc.nodes, n)
	}
	startCluster(t, fc.nodes)
	return fc
}

// set cuts node off from the others (or heals it): the traffic to its
// listener, and what it dialed to theirs.
func (fc *faultCluster) set(node *clusterNode, f natstest.Fault) {
	for i, p := range fc.proxies {
		if fc.nodes[i] == node {
			p.Set("*", f)
		} else {
			p.Set(node.name, f)
		}
	}
}

// isolate cuts node off for d, then heals it.
func (fc *faultCluster) isolate(t *testing.T, node *clusterNode, f natstest.Fault, d time.Duration) (*clusterNode, time.Time, time.Time) {
	from := time.Now()
	fc.set(node, f)
	<-time.After(d) // the partition itself
	fc.set(node, natstest.Heal)
	return node, from, time.Now()
}

// pause stops node's process for d (SIGSTOP, as a VM stalls).
func (fc *faultCluster) pause(t *testing.T, node *clusterNode, d time.Duration) {
	if err := node.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	<-time.After(d)
	if err := node.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// leader is the node that leads the event stream, as the cluster says.
func (fc *faultCluster) leader(t *testing.T) *clusterNode {
	t.Helper()
	var leader *clusterNode
	failover(t, "the event stream has a leader", func() bool {
		for _, via := range fc.nodes {
			name := streamLeader(via)
			for _, n := range fc.nodes {
				if n.name == name {
					leader = n
					return true
				}
			}
		}
		return false
	})
	return leader
}

// follower is a node that does not lead the event stream (it may lead
// other groups: the views, a consumer).
func (fc *faultCluster) follower(t *testing.T) *clusterNode {
	leader := fc.leader(t)
	for _, n := range fc.nodes {
		if n != leader {
			return n
		}
	}
	return nil
}

// streamLeader asks a node which node leads the event stream.
func streamLeader(via *clusterNode) string {
	nc, err := nats.Connect(via.natsURL, nats.Timeout(2*time.Second))
	if err != nil {
		return ""
	}
	defer nc.Close()
	resp, err := nc.Request("$JS.API.STREAM.INFO.EVENTS", nil, 2*time.Second)
	if err != nil {
		return ""
	}
	var info struct {
		Cluster struct{ Leader string } `json:"cluster"`
	}
	_ = json.Unmarshal(resp.Data, &info)
	return info.Cluster.Leader
}

// run is one run of a scenario: mail through every node before, during
// and after the fault, then the checks.
func (fc *faultCluster) run(t *testing.T, run int, sc scenario) {
	t.Helper()
	inboxes := make([]tokenInbox, 12)
	for i := range inboxes {
		eventually.True(t, "an inbox is created", func() bool {
			code, body := call(t, "POST", fc.nodes[i%3].base+"/inboxes/", "{}")
			return code == http.StatusCreated && json.Unmarshal(body, &inboxes[i]) == nil
		})
	}
	probes := startProbes(fc.nodes, inboxes)
	stop := make(chan struct{})
	giveUp := make(chan struct{})
	mtas := make([]*mta, 3)
	var wg sync.WaitGroup
	for i := range mtas {
		var order []*clusterNode
		for k := range 3 {
			order = append(order, fc.nodes[(i+k)%3])
		}
		mtas[i] = &mta{via: order, prefix: fmt.Sprintf("r%d-m%d", run, i)}
		for _, in := range inboxes[4*i : 4*i+4] {
			mtas[i].to = append(mtas[i].to, in.Address)
		}
		wg.Go(func() { mtas[i].send(stop, giveUp) })
	}
	flowing := func(what string) {
		before := acked(mtas)
		failover(t, what, func() bool { return acked(mtas) >= before+30 })
	}
	flowing("mail flows before the fault")
	cut, from, healed := sc.apply(t, fc)
	flowing("mail flows after the heal")
	close(stop)
	// Messages still being retried get until 30 s after the heal.
	go func() {
		<-time.After(max(time.Until(healed.Add(30*time.Second)), 0))
		close(giveUp)
	}()
	wg.Wait()
	probes.stop()
	notReady := probes.readyAgain(fc.nodes, from, healed)

	var want, unsure, refused []string
	for _, m := range mtas {
		want, unsure, refused = append(want, m.acked...), append(unsure, m.unsure...), append(refused, m.refused...)
	}
	// Converged: how long after the heal, or after the last 250 when
	// that came later, every node listed every message.
	since := healed
	if last := lastAck(mtas); last.After(since) {
		since = last
	}
	converged := time.Duration(0)
	var problems []string
	for _, node := range fc.nodes {
		err := eventually.Poll(60*time.Second, func() error { return exactlyOnce(node, inboxes, want, unsure) })
		if err != nil {
			problems = append(problems, err.Error())
			describeViews(t, node, inboxes[0].Token)
			continue
		}
		converged = max(converged, time.Since(since))
	}
	if len(refused) > 0 {
		problems = append(problems, fmt.Sprintf("%d messages to live inboxes refused for good: %s", len(refused), strings.Join(refused[:min(5, len(refused))], "; ")))
	}
	problems = append(problems, probes.check(cut, from, healed)...)
	problems = append(problems, notReady...)
	t.Logf("run %d: %d acknowledged, %d never (at most once each), %d refused with a 5xx; the longest time without a 250: %v; every node listed every message %v after the heal (or the last 250); reads answered 503 on nodes not cut off: %d of %d;%s",
		run, len(want), len(unsure), len(refused), writeGap(mtas, from, healed).Round(100*time.Millisecond), converged.Round(100*time.Millisecond),
		probes.unavailableReads(cut), probes.reads(), probes.timelines(from))
	if len(problems) > 0 {
		logViews(t, fc.nodes)
		t.Fatalf("run %d of %q:\n%s", run, sc.name, strings.Join(problems, "\n"))
	}
}

// exactlyOnce says what a node lists wrong: an acknowledged message
// missing or listed twice, a message never acknowledged listed twice, or
// one id listed twice.
func exactlyOnce(node *clusterNode, inboxes []tokenInbox, want, unsure []string) error {
	seen := map[string]int{}
	ids := map[string]int{}
	for _, in := range inboxes {
		for offset := 0; ; {
			code, body, err := get(fmt.Sprintf("%s/inboxes/%s/messages/?limit=200&offset=%d", node.base, in.Token, offset))
			if err != nil || code != http.StatusOK {
				return fmt.Errorf("%s: GET messages: %d %v", node.name, code, err)
			}
			var page []struct{ ID, Subject string }
			if err := json.Unmarshal(body, &page); err != nil {
				return err
			}
			for _, m := range page {
				seen[m.Subject]++
				ids[m.ID]++
			}
			if len(page) < 200 {
				break
			}
			offset += len(page)
		}
	}
	var missing, twice []string
	for _, s := range want {
		switch seen[s] {
		case 0:
			missing = append(missing, s)
		case 1:
		default:
			twice = append(twice, s)
		}
	}
	for _, s := range unsure {
		if seen[s] > 1 {
			twice = append(twice, s)
		}
	}
	for id, n := range ids {
		if n > 1 {
			twice = append(twice, "id "+id)
		}
	}
	if len(missing) > 0 || len(twice) > 0 {
		return fmt.Errorf("%s: %d of %d acknowledged messages missing (%s), %d listed more than once (%s)", node.name,
			len(missing), len(want), strings.Join(missing[:min(5, len(missing))], " "), len(twice),
			strings.Join(twice[:min(5, len(twice))], " "))
	}
	return nil
}

func get(url string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
