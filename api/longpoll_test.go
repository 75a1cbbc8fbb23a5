package api_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service/apitest"
)

// consumers counts the JetStream consumers on every stream.
func consumers(h *apitest.Harness) int {
	h.T.Helper()
	n := 0
	streams := h.Service.Node.JS.ListStreams(context.Background())
	for info := range streams.Info() {
		n += info.State.Consumers
	}
	if err := streams.Err(); err != nil {
		h.T.Fatal(err)
	}
	return n
}

// heldHandlers counts goroutines inside hold, and reports whether any
// goroutine of ours is sleeping (a polling loop would be).
func heldHandlers() (held int, sleeping []string) {
	buf := make([]byte, 64<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "tempmail/api/family.(*Kit).Hold") {
			held++
		}
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(g, "tempmail/") && strings.Contains(header, "[sleep") {
			sleeping = append(sleeping, header)
		}
	}
	return held, sleeping
}

// TestHeldRequestsCostNoConsumersAndNoLoops: 200 requests held on one
// inbox make no NATS consumer, ask NATS for nothing while they wait, and
// take one goroutine each, none of them sleeping; one message answers
// them all.
//
// It is the one test of the package that does not run in parallel: it
// counts the goroutines of the whole process, which other tests' services
// would add to.
func TestHeldRequestsCostNoConsumersAndNoLoops(t *testing.T) {
	// All 200 come from one address, beyond its fair share: this is about
	// what holding costs the server (fairshare_test.go is about shares).
	h := apitest.New(t, func(c *config.Config) { c.MaxWaitersPerClient = 0 })
	token, addr := h.TokenInbox()
	quiet, _ := h.TokenInbox() // see below
	before := consumers(h)
	heldBefore, _ := heldHandlers()
	waitersBefore := h.Service.Views.Hub().Waiters() // the service's own (the fault rules' cache)

	const n = 200
	client := h.ClientVia(&http.Transport{MaxIdleConnsPerHost: n}, 0)
	defer client.CloseIdleConnections()
	results := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := client.Get(h.URL + "/inboxes/" + token + "/latest/?wait=10")
			if err != nil {
				results <- err.Error()
				return
			}
			resp.Body.Close()
			results <- resp.Status
		})
	}
	eventually.Nil(t, fmt.Sprintf("%d requests held on the hub", n), func() error {
		if w := h.Service.Views.Hub().Waiters() - waitersBefore; w != n {
			return fmt.Errorf("%d held", w)
		}
		return nil
	})
	if after := consumers(h); after != before {
		t.Errorf("holding %d requests changed the number of NATS consumers from %d to %d", n, before, after)
	}
	// While they are held, nothing asks NATS for anything on their behalf:
	// a loop re-reading views would show as messages into the server, once
	// the views' read cache is dropped (else it would answer the loop).
	// The time looked at is what a request to another inbox spends held
	// with wait=1: the service's own clock ends it, not a guess of the
	// test's, and it costs NATS only its own few reads.
	varz := func() int64 {
		v, err := h.Service.Node.Server().Varz(nil)
		if err != nil {
			t.Fatal(err)
		}
		return v.InMsgs
	}
	h.Service.Views.DropCache()
	in0, start := varz(), time.Now()
	h.Expect(h.Do("GET", "/inboxes/"+quiet+"/latest/?wait=1", ""), http.StatusNotFound, `{"error":"No messages"}`)
	grew, took := varz()-in0, time.Since(start)
	t.Logf("%d messages reached NATS in the %v another request was held", grew, took.Round(time.Millisecond))
	if grew > 20 {
		t.Errorf("%d messages reached NATS in %v while %d requests were held; want only background traffic", grew, took, n)
	}
	held, sleeping := heldHandlers()
	if held-heldBefore != n {
		t.Errorf("%d goroutines in hold, want exactly one per request (%d)", held-heldBefore, n)
	}
	if len(sleeping) > 0 {
		t.Errorf("goroutines of ours sleeping while requests are held (polling?): %v", sleeping)
	}

	start = time.Now()
	h.SendMail(addr, "Subject: wake up\r\n\r\ncode 424242\r\n")
	wg.Wait()
	close(results)
	ok := 0
	for r := range results {
		if r == "200 OK" {
			ok++
		} else {
			t.Errorf("a held request got %s", r)
		}
	}
	t.Logf("%d held requests answered 200 within %v of the message's 250", ok, time.Since(start))
	if ok != n {
		t.Errorf("%d of %d held requests got the message", ok, n)
	}
	if w := h.Service.Views.Hub().Waiters(); w != waitersBefore {
		t.Errorf("%d hub subscriptions left after the requests ended", w-waitersBefore)
	}
}
