package service_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail/events"
	"tempmail/eventually"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// idleWork is what the service does while nobody uses it: messages through
// NATS and CPU time of the whole process.
type idleWork struct {
	msgs uint64
	cpu  time.Duration
}

// idleWindow is how long measureIdle watches. Work per unit of time is
// what is measured, so a window of real time is inherent to it. Its length
// was the period of the idle service's most frequent NATS traffic, the
// heartbeat of the views' watcher, every 5 s, which a single node no
// longer has (its workers tell its readers what they write); the pulls'
// heartbeats, every 15 s, fall in one window or another, within the
// margin of 20 messages.
const idleWindow = 5 * time.Second

// restAfter is the tests' rest time: the service hands memory back after
// 2 s of quiet, then after 4, 8, 16 s more (reclaimWhenIdle).
const restAfter = 2 * time.Second

// reclaims is how often svc has handed memory back at rest.
func reclaims(t *testing.T, svc *service.Service) float64 {
	t.Helper()
	n, _ := servicetest.Metric(servicetest.Scrape(t, servicetest.URL(svc)), "tempmail_memory_reclaims_total")
	return n
}

// measureIdle returns the work svc does over idleWindow at rest: after its
// second hand-back of memory, when the next is 8 s away. What a hand-back
// costs (a collection of the whole heap, ever less often) is stated
// beside, not measured: it is the price of memory at rest.
func measureIdle(t *testing.T, svc *service.Service) idleWork {
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
	from := reclaims(t, svc)
	eventually.Within(t, time.Minute, "the service at rest", func() error {
		if n := reclaims(t, svc); n < from+2 {
			return fmt.Errorf("%v hand-backs of memory since the last work, want 2", n-from)
		}
		return nil
	})
	at := reclaims(t, svc)
	m0, c0 := varz(), cpu()
	time.Sleep(idleWindow) // no signal: the measure is of time itself (idleWindow)
	w := idleWork{msgs: varz() - m0, cpu: cpu() - c0}
	if reclaims(t, svc) != at {
		t.Fatal("the service handed memory back within the window: its rest times changed")
	}
	return w
}

// handBack is the CPU the process spends over its next hand-back of memory
// at rest, less what the time it waited costs at rest (about 2 ms a
// second).
func handBack(t *testing.T, svc *service.Service) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	cpu := func() time.Duration {
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	at, c0, t0 := reclaims(t, svc), cpu(), time.Now()
	eventually.Within(t, time.Minute, "the next hand-back", func() error {
		if reclaims(t, svc) == at {
			return errors.New("not yet")
		}
		return nil
	})
	return cpu() - c0 - time.Since(t0)/500
}

// 100,000 live inboxes with lifetimes cost no periodic work: their expiries
// wait in the server's scheduler, and nothing scans them. Not parallel: it
// measures the process's CPU time, which other tests' services would spend.
func TestIdleCostDoesNotGrowWithInboxes(t *testing.T) {
	servicetest.Long(t) // 100,000 inboxes, and the idle service watched at rest
	n := 100000
	if s := os.Getenv("TEMPMAIL_IDLE_INBOXES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	svc := servicetest.StartWith(t, servicetest.Config(t), service.Options{RestAfter: restAfter})
	empty := measureIdle(t, svc)

	start := time.Now()
	ctx := t.Context()
	var wg sync.WaitGroup
	per := n / 8
	for w := range 8 {
		wg.Go(func() {
			for i := range per {
				now := time.Now().UTC()
				addr := "idle" + strconv.Itoa(w) + "x" + strconv.Itoa(i) + "@tempmail.test"
				_, err := svc.Store.CreateInbox(ctx, events.InboxCreated{InboxID: uuid.NewString(), Address: addr,
					Token: uuid.NewString(), DomainID: 1, CreatedAt: now,
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
	full := measureIdle(t, svc)
	t.Logf("a hand-back of memory at rest, with %d inboxes: %v of CPU", per*8, handBack(t, svc).Round(time.Millisecond))
	perMin := func(w idleWork) string {
		k := float64(time.Minute) / float64(idleWindow)
		return strconv.FormatFloat(float64(w.msgs)*k, 'f', 0, 64) + " NATS messages and " +
			(time.Duration(float64(w.cpu) * k)).Round(time.Millisecond).String() + " CPU per minute"
	}
	t.Logf("idle with no inboxes: %s", perMin(empty))
	t.Logf("idle with %d inboxes: %s", per*8, perMin(full))
	if full.msgs > empty.msgs+20 {
		t.Errorf("idle NATS traffic grew from %d to %d messages per %v with %d inboxes", empty.msgs, full.msgs, idleWindow, per*8)
	}
	// At most half as much again, and 10 ms a window of slack: the
	// empty service spends about 10 ms a window, and a tick of the
	// process's CPU clock is 1 ms to 10 ms.
	if full.cpu > empty.cpu*3/2+10*time.Millisecond {
		t.Errorf("idle CPU grew from %v to %v per %v with %d inboxes", empty.cpu, full.cpu, idleWindow, per*8)
	}
}
