package service

import (
	"runtime"
	"runtime/debug"
	"time"
)

// idleAfter is how long the service must have applied no event and
// answered no request before it is at rest (reclaimWhenIdle);
// reclaimEvery is how often it hands memory back while it stays so;
// restGCPercent is the garbage collector's GOGC meanwhile.
const (
	idleAfter     = 30 * time.Second
	reclaimEvery  = time.Minute
	restGCPercent = 25
)

// reclaimWhenIdle hands memory back to the system once the service has
// been quiet for idleAfter, and every reclaimEvery while it stays so.
// Under load the embedded NATS server and the garbage collector keep what
// the load needed (caches of the blocks just written, pools of buffers, a
// heap goal sized for the rate), and without new work nothing would make
// them let go: a service at rest would go on holding what its busiest
// minute took. The read caches go too, and they refill as reads come.
// Two collections empty the pools; the second returns the freed pages. At
// rest the server still does periodic work on its blocks, which the
// collector then keeps close to what is live (restGCPercent); the usual
// pace returns with the first event applied or request answered.
func (s *Service) reclaimWhenIdle() {
	t := time.NewTicker(idleAfter / 2)
	defer t.Stop()
	// Work is events applied (mail, commands, whatever other processes
	// of a cluster take in) and HTTP requests (a process whose partitions
	// are pinned elsewhere still serves reads).
	work := func() uint64 { return s.Views.Applied() + s.requests.Load() }
	last, quiet := work(), 0
	var reclaimed time.Time    // zero: not since the last work
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
			last, quiet, reclaimed = n, 0, time.Time{}
			if atRest {
				debug.SetGCPercent(busyGC)
				atRest = false
			}
			continue
		}
		if quiet++; quiet >= 2 && time.Since(reclaimed) >= reclaimEvery {
			if !atRest {
				busyGC, atRest = debug.SetGCPercent(restGCPercent), true
			}
			s.Views.DropCache()
			s.Store.DropCache()
			runtime.GC()
			debug.FreeOSMemory()
			reclaimed = time.Now()
		}
	}
}
