package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// failover is eventually.True with the time a cluster may take to ride out
// the loss of a node on two busy cores (new stream leaders; the dead
// node's partitions move after their 5 s pins, an event it held after the
// 10 s ack wait): 45 s, not eventually's 30.
func failover(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventually.Within(t, 45*time.Second, what, func() error {
		if cond() {
			return nil
		}
		return errors.New("not yet")
	})
}

// leadEverything moves the leadership of the event stream and of the views
// bucket to node, so that killing it takes the leaders down with it.
func leadEverything(t *testing.T, via, node *clusterNode) {
	t.Helper()
	nc, err := nats.Connect(via.natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, stream := range []string{"EVENTS", "KV_VIEWS_1"} {
		// Each leader other than node is asked once to step down for it;
		// while the election runs, the one asked may still answer as
		// leader, and is left to finish.
		asked := ""
		failover(t, node.name+" leads "+stream, func() bool {
			resp, err := nc.Request("$JS.API.STREAM.INFO."+stream, nil, 2*time.Second)
			if err != nil {
				return false
			}
			var info struct {
				Cluster struct{ Leader string } `json:"cluster"`
			}
			_ = json.Unmarshal(resp.Data, &info)
			leader := info.Cluster.Leader
			if leader == node.name || leader == "" || leader == asked {
				return leader == node.name
			}
			req := fmt.Sprintf(`{"placement":{"preferred":%q}}`, node.name)
			resp, err = nc.Request("$JS.API.STREAM.LEADER.STEPDOWN."+stream, []byte(req), 5*time.Second)
			var answer struct {
				Success bool `json:"success"`
			}
			if err == nil && json.Unmarshal(resp.Data, &answer) == nil && answer.Success {
				asked = leader
			}
			return false
		})
	}
}

// sent is what a sender knows of its messages: those that got a 250, and
// those that got no answer or a 451 (a publish that timed out may have been
// stored all the same), which may appear once or not at all.
type sent struct {
	acked, unsure []string
}

// sendUntil sends numbered messages to addr through smtpAddr until stop
// closes or the server goes away; it counts those acknowledged in acks as
// it goes.
func sendUntil(smtpAddr, addr, prefix string, stop <-chan struct{}, acks *atomic.Int64) sent {
	return sendAround(smtpAddr, []string{addr}, prefix, stop, acks)
}

// sendAround is sendUntil to several addresses in turn: a long run stays
// below the cap on an inbox's messages, beyond which the oldest go.
func sendAround(smtpAddr string, addrs []string, prefix string, stop <-chan struct{}, acks *atomic.Int64) sent {
	var s sent
	for i := 0; ; i++ {
		addr := addrs[i%len(addrs)]
		select {
		case <-stop:
			return s
		default:
		}
		subject := fmt.Sprintf("%s-%d", prefix, i)
		body := fmt.Sprintf("From: s@example.com\r\nTo: %s\r\nSubject: %s\r\n\r\nhello %d\r\n", addr, subject, i)
		if err := servicetest.TrySend(smtpAddr, "s@example.com", addr, body); err != nil {
			s.unsure = append(s.unsure, subject)
			if strings.Contains(err.Error(), "451") {
				continue // a sender tries again later
			}
			return s
		}
		s.acked = append(s.acked, subject)
		acks.Add(1)
	}
}

// subjects counts the subjects of an inbox's messages as a node lists
// them; a node that cannot answer now (503 while leaders move) is an
// error, for the caller to try again.
func subjects(base, token string) (map[string]int, error) {
	seen := map[string]int{}
	for offset := 0; ; {
		resp, err := http.Get(fmt.Sprintf("%s/inboxes/%s/messages/?limit=200&offset=%d", base, token, offset))
		if err != nil {
			return nil, err
		}
		var page []struct{ Subject string }
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil {
			return nil, fmt.Errorf("GET messages: %d (%v)", resp.StatusCode, err)
		}
		for _, m := range page {
			seen[m.Subject]++
		}
		if len(page) < 200 {
			return seen, nil
		}
		offset += len(page)
	}
}

// describeViews logs what a node says of an inbox and which of its list
// pages the views hold: whether mail missing from a list was never
// applied, or is in a page the list did not read.
func describeViews(t *testing.T, node *clusterNode, token string) {
	t.Helper()
	_, body := call(t, "GET", node.base+"/inboxes/"+token+"/", "")
	t.Logf("%s: the inbox: %s", node.name, body)
	nc, err := nats.Connect(node.natsURL)
	if err != nil {
		t.Logf("%s: %v", node.name, err)
		return
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// What the log holds of the inbox's mail, and how far each partition's
	// views have applied it: mail missing from a list was lost from the
	// log, or not applied.
	if st, err := js.Stream(ctx, "EVENTS"); err == nil {
		if info, err := st.Info(ctx, jetstream.WithSubjectFilter("ev.*.*.m.*")); err == nil {
			t.Logf("%s: the log's last sequence %d; message subjects: %v", node.name, info.State.LastSeq, info.State.Subjects)
		}
	}
	for name := range js.KeyValueStoreNames(ctx).Name() {
		if !strings.HasPrefix(name, "VIEWS_") {
			continue
		}
		kv, err := js.KeyValue(ctx, name)
		if err != nil {
			t.Logf("%s: %s: %v", node.name, name, err)
			continue
		}
		keys, err := kv.ListKeysFiltered(ctx, "l.>")
		if err != nil {
			t.Logf("%s: %s: %v", node.name, name, err)
			continue
		}
		var pages []string
		for k := range keys.Keys() {
			e, err := kv.Get(ctx, k)
			if err != nil {
				pages = append(pages, k+" ("+err.Error()+")")
				continue
			}
			pages = append(pages, fmt.Sprintf("%s (rev %d, %d bytes)", k, e.Revision(), len(e.Value())))
		}
		t.Logf("%s: %s holds the list pages %v", node.name, name, pages)
		if st, err := js.Stream(ctx, "KV_"+name); err == nil {
			if info, err := st.Info(ctx); err == nil {
				var reps []string
				if info.Cluster != nil {
					for _, r := range info.Cluster.Replicas {
						reps = append(reps, fmt.Sprintf("%s current=%v lag=%d", r.Name, r.Current, r.Lag))
					}
					t.Logf("%s: stream KV_%s: %d messages, last %d; leader %s, replicas %v", node.name, name,
						info.State.Msgs, info.State.LastSeq, info.Cluster.Leader, reps)
				}
			}
		}
		if cps, err := kv.ListKeysFiltered(ctx, "c.>"); err == nil {
			var seen []string
			for k := range cps.Keys() {
				if e, err := kv.Get(ctx, k); err == nil {
					var cp struct{ Seq uint64 }
					_ = json.Unmarshal(e.Value(), &cp)
					seen = append(seen, fmt.Sprintf("%s=%d", k, cp.Seq))
				}
			}
			t.Logf("%s: %s checkpoints %v", node.name, name, seen)
		}
	}
	// Where each views consumer stands: a partition whose checkpoint lags
	// with events pending and none in flight waits on its pin.
	if st, err := js.Stream(ctx, "EVENTS"); err == nil {
		for info := range st.ListConsumers(ctx).Info() {
			if !strings.HasPrefix(info.Name, "views-") {
				continue
			}
			var leader, pin string
			if info.Cluster != nil {
				leader = info.Cluster.Leader
			}
			for _, g := range info.PriorityGroups {
				pin += fmt.Sprintf(" %s pinned %q since %s", g.Group, g.PinnedClientID, g.PinnedTS.Format("15:04:05.000"))
			}
			t.Logf("%s: consumer %s: leader %s, delivered %d, ack floor %d, pending %d, in flight %d, redelivered %d, waiting pulls %d;%s",
				node.name, info.Name, leader, info.Delivered.Stream, info.AckFloor.Stream, info.NumPending,
				info.NumAckPending, info.NumRedelivered, info.NumWaiting, pin)
		}
	}
}
