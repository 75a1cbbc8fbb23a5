package webhooks_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"tempmail/backend/backendtest"
	"tempmail/config"
	"tempmail/eventually"
	"tempmail/webhooks"
)

// holding returns an answer that holds each request until release is
// called, or its sender goes. A test defers release too: a receiver's
// closing waits for the requests it holds.
func holding() (answer func(int, http.ResponseWriter, *http.Request), release func()) {
	ch := make(chan struct{})
	release = sync.OnceFunc(func() { close(ch) })
	return func(_ int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-ch:
		case <-r.Context().Done():
		}
	}, release
}

// longAttempts lets an attempt wait for a held receiver as long as a test
// may take.
func longAttempts(o *webhooks.Options) { o.AttemptTimeout = 2 * eventually.Timeout }

// TestALaneMakesFourAttemptsAtOnce: a subscription whose receiver holds
// every request gets four at once, and no more until it answers, though
// twelve are due; another subscription's delivery, due after all twelve,
// arrives meanwhile. Once the receiver answers, the rest arrive, each once.
func TestALaneMakesFourAttemptsAtOnce(t *testing.T) {
	t.Parallel()
	svc := start(t, longAttempts)
	answer, release := holding()
	defer release()
	slow, other := newReceiver(t, answer), newReceiver(t, nil)
	busy, quiet := backendtest.CreateInbox(t, svc, ""), backendtest.CreateInbox(t, svc, "")
	subscribe(t, svc, slow.URL, busy)
	subscribe(t, svc, other.URL, quiet)
	const n = 12
	for i := range n {
		backendtest.Deliver(t, svc, busy.Token, fmt.Sprintf("m%d", i))
	}
	backendtest.Deliver(t, svc, quiet.Token, "after the twelve")
	// Jobs are taken in the order they were made: the other lane's, made
	// last, is taken after every one of the slow lane's.
	other.take(t, 1)
	slow.take(t, 4)
	if got := slow.most(); got != 4 {
		t.Errorf("the held receiver got %d requests at once, want its lane's 4", got)
	}
	release()
	hits := slow.take(t, n-4)
	settled(t, svc)
	if got := slow.most(); got != 4 {
		t.Errorf("the receiver got %d requests at once, want at most its lane's 4", got)
	}
	if len(slow.got) != 0 {
		t.Errorf("%d requests more than the %d deliveries", len(slow.got), n)
	}
	ids := map[string]bool{}
	for _, h := range hits {
		ids[h.id()] = true
	}
	if len(ids) != n-4 {
		t.Errorf("the last %d deliveries have %d ids", n-4, len(ids))
	}
}

// TestAFullLanePutsJobsOff: eighty deliveries to one subscription made at
// once, by mail sent at once, while its receiver holds every request: the
// lane holds 64 jobs, and the rest are put off (the deferred outcome), not
// attempted. Once the receiver answers, all eighty arrive, each once and
// each as a first attempt.
func TestAFullLanePutsJobsOff(t *testing.T) {
	t.Parallel()
	svc := start(t, longAttempts, func(c *config.Config) { c.SMTPMaxConnsPerIP, c.SMTPRatePerIP = 0, 0 })
	answer, release := holding()
	defer release()
	rc := newReceiver(t, answer)
	in := backendtest.CreateInbox(t, svc, "")
	h := subscribe(t, svc, rc.URL, in)
	const senders, each, laneMax = 8, 10, 64
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				if err := backendtest.Mail(svc.SMTPAddr(), in.Address, fmt.Sprintf("m%d-%d", s, i), "x"); err != nil {
					t.Errorf("send: %v", err)
				}
			}
		})
	}
	wg.Wait()
	eventually.True(t, "the jobs beyond the lane put off", func() bool {
		return outcome(t, svc, "deferred") >= senders*each-laneMax
	})
	if got := rc.most(); got > 4 {
		t.Errorf("the held receiver got %d requests at once", got)
	}
	release()
	hits := rc.take(t, senders*each)
	settled(t, svc)
	ids := map[string]bool{}
	for _, hit := range hits {
		if ids[hit.id()] {
			t.Errorf("%s delivered twice", hit.id())
		}
		ids[hit.id()] = true
	}
	if len(rc.got) != 0 {
		t.Errorf("%d requests more than the %d deliveries", len(rc.got), senders*each)
	}
	if got := outcome(t, svc, "delivered"); got != senders*each {
		t.Errorf("%v delivered, want %d", got, senders*each)
	}
	for _, a := range attempts(t, svc, h.ID) {
		if a.Attempt != 1 || a.Error != "" {
			t.Errorf("a delivery put off is logged as %+v; putting off is no attempt", a)
		}
	}
}
