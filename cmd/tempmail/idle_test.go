package main

import (
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"tempmail/service"

	"github.com/google/uuid"

	"tempmail/events"
)

// idleWork is what the service does while nobody uses it: messages through
// NATS and CPU time of the whole process.
type idleWork struct {
	msgs uint64
	cpu  time.Duration
}

func measureIdle(t *testing.T, svc *service.Service, d time.Duration) idleWork {
	t.Helper()
	varz := func() uint64 {
		v, err := svc.Node.Server().Varz(nil)
		if err != nil {
			t.Fatal(err)
		}
		return uint64(v.InMsgs + v.OutMsgs)
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	m0, c0 := varz(), cpu()
	time.Sleep(d)
	return idleWork{msgs: varz() - m0, cpu: cpu() - c0}
}

// 100,000 live inboxes with lifetimes cost no periodic work: their expiries
// wait in the server's scheduler, and nothing scans them.
func TestIdleCostDoesNotGrowWithInboxes(t *testing.T) {
	if raceDetector {
		t.Skip("100,000 inboxes under -race take minutes; make test runs this without -race")
	}
	n := 100000
	if s := os.Getenv("TEMPMAIL_IDLE_INBOXES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	cfg := testConfig(t.TempDir())
	svc, _ := startServiceWith(t, cfg)
	const window = 10 * time.Second
	empty := measureIdle(t, svc, window)

	start := time.Now()
	ctx := ctxT(t)
	var wg sync.WaitGroup
	per := n / 8
	for w := range 8 {
		wg.Go(func() {
			for i := range per {
				now := time.Now().UTC()
				addr := "idle" + strconv.Itoa(w) + "x" + strconv.Itoa(i) + "@tempmail.test"
				_, err := svc.Store.CreateInbox(ctx, events.InboxCreated{InboxID: uuid.NewString(), Address: addr,
					Token: uuid.NewString(), Family: events.FamilyC, DomainID: 1, CreatedAt: now,
					ExpiresAt: now.Add(24 * time.Hour)}, 0)
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	created := time.Since(start)
	if err := svc.Views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d inboxes with expiry schedules created in %v, applied after %v", per*8, created.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	time.Sleep(2 * time.Second) // let the last writes settle
	full := measureIdle(t, svc, window)
	perMin := func(w idleWork) string {
		k := float64(time.Minute) / float64(window)
		return strconv.FormatFloat(float64(w.msgs)*k, 'f', 0, 64) + " NATS messages and " +
			(time.Duration(float64(w.cpu) * k)).Round(time.Millisecond).String() + " CPU per minute"
	}
	t.Logf("idle with no inboxes: %s", perMin(empty))
	t.Logf("idle with %d inboxes: %s", per*8, perMin(full))
	if full.msgs > empty.msgs+20 {
		t.Errorf("idle NATS traffic grew from %d to %d messages per %v with %d inboxes", empty.msgs, full.msgs, window, per*8)
	}
	if full.cpu > empty.cpu+window/20 {
		t.Errorf("idle CPU grew from %v to %v per %v with %d inboxes", empty.cpu, full.cpu, window, per*8)
	}
}
