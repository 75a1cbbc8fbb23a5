package service

import (
	"runtime"
	"runtime/debug"
	"time"
)

// idleAfter is how long the service must have applied no event and
// answered no request before it is at rest (reclaimWhenIdle);
// restGCPercent is the garbage collector's GOGC meanwhile; at rest memory
// is handed back again after twice idleAfter, then after twice as long
// each time, up to maxReclaimGap.
const (
	idleAfter     = 30 * time.Second
	maxReclaimGap = time.Hour
	restGCPercent = 25
)

// reclaimWhenIdle hands memory back to the system once the service has
// been quiet for its rest time (idleAfter), and again while it stays so,
// ever less often. Under load the embedded NATS server and the garbage
// collector keep what the load needed (caches of the blocks just written,
// pools of buffers, a heap goal sized for the rate), and without new work
// nothing would make them let go: a service at rest would go on holding
// what its busiest minute took. The read caches go too, and they refill as
// reads come. Two collections empty the pools; the second returns the
// freed pages. At rest the server still lets go of caches over the first
// minutes (what the later hand-backs return), and does periodic work on
// its blocks, which the collector then keeps close to what is live
// (restGCPercent). A hand-back collects the whole heap, whose cost grows
// with what is stored (about 0.6 s of CPU with 100,000 inboxes): so they
// come ever further apart, and the idle service's cost per hour stays
// that of an empty one but for a few of them. The usual pace returns with
// the first event applied or request answered.
func (s *Service) reclaimWhenIdle() {
	restAfter := s.restAfter
	if restAfter <= 0 {
		restAfter = idleAfter
	}
	t := time.NewTicker(restAfter / 2)
	defer t.Stop()
	// Work is events applied (mail, commands, whatever other processes
	// of a cluster take in) and HTTP requests (a process whose partitions
	// are pinned elsewhere still serves reads).
	work := func() uint64 { return s.Views.Applied() + s.requests.Load() }
	last, quiet := work(), 0
	var reclaimed time.Time    // zero: not since the last work
	gap := 2 * restAfter       // until the next hand-back at rest
	atRest, busyGC := false, 0 // busyGC: the GC percent before rest
	defer func() {
		if atRest {
			debug.SetGCPercent(busyGC)
		}
	}()
	for {
		select {
		case <-s.stopping:
			return
		case <-t.C:
		}
		if n := work(); n != last {
			last, quiet, reclaimed, gap = n, 0, time.Time{}, 2*restAfter
			if atRest {
				debug.SetGCPercent(busyGC)
				atRest = false
			}
			continue
		}
		if quiet++; quiet < 2 || (!reclaimed.IsZero() && time.Since(reclaimed) < gap) {
			continue
		}
		if !atRest {
			busyGC, atRest = debug.SetGCPercent(restGCPercent), true
		} else {
			gap = min(2*gap, maxReclaimGap)
		}
		s.Views.DropCache()
		s.Store.DropCache()
		runtime.GC()
		debug.FreeOSMemory()
		reclaimed = time.Now()
		s.reclaims.Add(1)
	}
}
