package command_test

import (
	"math"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"tempmail"
	"tempmail/backend/backendtest"
	"tempmail/broker"
	"tempmail/command"
	"tempmail/projections"
)

// counted is the value of the counter name (with reason, when not empty)
// that reg gathers now; 0 when it has none.
func counted(t *testing.T, reg *prometheus.Registry, name, reason string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := m.GetLabel()
			if reason == "" || (len(labels) == 1 && labels[0].GetName() == "reason" && labels[0].GetValue() == reason) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestMetricsCountCopiesStoredAndRefusals: tempmail_messages_received_total
// counts the copies stored, one per recipient, and not a retry's;
// tempmail_messages_rejected_total counts what delivery refuses by its
// reason: recipients without a mailbox or not served (the inbound
// webhook's), a disk too full to hold the message, a store that cannot
// take it.
func TestMetricsCountCopiesStoredAndRefusals(t *testing.T) {
	t.Parallel()
	svc := start(t)
	reg := prometheus.NewRegistry()
	c := *svc.Commands
	c.Metrics = command.NewMetrics(reg)
	const received, rejected = "tempmail_messages_received_total", "tempmail_messages_rejected_total"
	want := func(name, reason string, n float64) {
		t.Helper()
		if got := counted(t, reg, name, reason); got != n {
			t.Errorf("%s{reason=%q} = %v, want %v", name, reason, got, n)
		}
	}
	a, b := newInbox(t, svc, "a"), newInbox(t, svc, "b")
	msg := message(a.Address, "counted", "hi")
	if _, err := deliverWith(t, svc, &c, "client.example", []*projections.Inbox{a, b}, msg); err != nil {
		t.Fatal(err)
	}
	want(received, "", 2)
	// A retry to the inboxes as they are now (as Accept returns them), and
	// one racing the first copy (the views did not show it to Accept yet),
	// which the stream finds a duplicate.
	for _, rcpts := range [][]*projections.Inbox{{inbox(t, svc, a), inbox(t, svc, b)}, {a, b}} {
		if res, err := deliverWith(t, svc, &c, "client.example", rcpts, msg); err != nil || !res.Duplicate {
			t.Fatalf("the retry: %+v %v", res, err)
		}
	}
	want(received, "", 2)

	if _, err := handOver(t, svc, &c, message(a.Address, "handed over", "hi"),
		a.Address, "nobody@tempmail.test", "x@gmail.com", "y@gmail.com"); err != nil {
		t.Fatal(err)
	}
	want(received, "", 3)
	want(rejected, command.RejectNoMailbox, 1)
	want(rejected, command.RejectNotServed, 2)

	full := c
	full.Disk = broker.NewDiskGuard(svc.Config.DataDir, math.MaxInt64) // more room kept free than any disk has
	if res, err := deliverWith(t, svc, &full, "client.example", []*projections.Inbox{a}, message(a.Address, "no room", "hi")); tempmail.KindOf(err) != tempmail.Full {
		t.Errorf("on a full disk: %+v %v, want Full", res, err)
	}
	want(rejected, command.RejectDiskFull, 1)

	backendtest.Stop(svc)
	if res, err := deliverWith(t, svc, &c, "client.example", []*projections.Inbox{a}, message(a.Address, "no store", "hi")); tempmail.KindOf(err) != tempmail.Unavailable {
		t.Errorf("with the service stopped: %+v %v, want Unavailable", res, err)
	}
	want(rejected, command.RejectUnavailable, 1)
	want(received, "", 3)
	want(rejected, command.RejectNoMailbox, 1)
}
