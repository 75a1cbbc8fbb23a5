package service

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"time"
)

// idleAfter is how long the service must have applied no event and
// answered no request before it is at rest (reclaimWhenIdle);
// restGCPercent is the garbage collector's GOGC meanwhile; at rest memory
// is handed back again after twice idleAfter, then after twice as long
// each time, up to maxReclaimGap.
//
// burstQuiet is how long the service must have been quiet after work
// before it hands back what the work took (reclaimWhenIdle), provided the
// work since the last hand-back used at least burstShare times the CPU
// that one cost: once the embedded server's caches of the burst's writes
// have expired, so that one hand-back returns them with the rest.
const (
	idleAfter     = 30 * time.Second
	maxReclaimGap = time.Hour
	restGCPercent = 25
	burstQuiet    = serverCacheExpiry + 2*time.Second
	burstShare    = 50
)

// serverCacheExpiry is how long the embedded server keeps a message
// block's cache after the block was last read or written (nats-server's
// defaultCacheBufferExpiration, which no option sets).
const serverCacheExpiry = 10 * time.Second

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
//
// A burst of work also ends with memory handed back, once the service has
// been quiet for burstQuiet: without it, the heap the collector sized for
// the load (twice what was live, some 60 MiB after 15,000 messages of 4
// KiB) stays taken until the rest time, for no collection runs without
// new work (docs/BENCHMARKS.md, "Footprint"). The read caches go with it.
// What the burst wrote, the embedded server keeps cached for
// serverCacheExpiry after the last read of it (its workers read what was
// just written): some 24 MiB after 15,000 messages of 4 KiB. So the
// hand-back waits until those caches have expired, and returns them too:
// one hand-back a burst, where one soon after it and another once the
// caches expired cost twice the CPU, which the budget below did not
// always allow for the second (an RSS of 82 MiB instead of about 62).
// It collects four times, not two: a block cache the server let go of
// returns its buffer to the server's pool only once a collection has
// found the cache unreachable, and the pool keeps it through the next
// collection. It comes once a burst, and only when the work since the
// last hand-back used at least burstShare times the CPU that one took:
// however short the bursts and however large the heap, hand-backs take no
// more than a fiftieth of the CPU that work does.
func (s *Service) reclaimWhenIdle() {
	restAfter := s.restAfter
	if restAfter <= 0 {
		restAfter = idleAfter
	}
	// Quiet is told to the second while busy, by the rest time's half at
	// rest.
	busyTick := min(restAfter/2, time.Second)
	t := time.NewTicker(busyTick)
	defer t.Stop()
	// Work is events applied (mail, commands, whatever other processes
	// of a cluster take in) and HTTP requests (a process whose partitions
	// are pinned elsewhere still serves reads).
	work := func() uint64 { return s.Views.Applied() + s.requests.Load() }
	last, lastWork := work(), time.Now()
	var reclaimed time.Time    // zero: not since the last work
	gap := 2 * restAfter       // until the next hand-back at rest
	atRest, busyGC := false, 0 // busyGC: the GC percent before rest
	burst := false             // work since the last hand-back
	// The process's CPU at the end of the last hand-back, and what that
	// one cost.
	cpuAt, cost := processCPU(), time.Duration(0)
	handBack := func(collections int, why string) {
		c0 := processCPU()
		s.Views.DropCache()
		s.Store.DropCache()
		for range collections - 1 {
			runtime.GC()
		}
		debug.FreeOSMemory() // the last collection, then the freed pages returned
		cpuAt = processCPU()
		cost = cpuAt - c0
		s.log.Debug("memory handed back", "after", why, "cpu", cost)
	}
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
		now := time.Now()
		if n := work(); n != last {
			last, lastWork, reclaimed, gap, burst = n, now, time.Time{}, 2*restAfter, true
			if atRest {
				debug.SetGCPercent(busyGC)
				atRest = false
				t.Reset(busyTick)
			}
			continue
		}
		quiet := now.Sub(lastWork)
		if burst && quiet >= burstQuiet && quiet < restAfter {
			burst = false
			if processCPU()-cpuAt >= burstShare*cost {
				handBack(4, "a burst")
			}
			continue
		}
		if quiet < restAfter || (!reclaimed.IsZero() && now.Sub(reclaimed) < gap) {
			continue
		}
		if !atRest {
			busyGC, atRest = debug.SetGCPercent(restGCPercent), true
			t.Reset(restAfter / 2)
		} else {
			gap = min(2*gap, maxReclaimGap)
		}
		handBack(2, "rest")
		reclaimed, burst = now, false
		s.reclaims.Add(1)
	}
}

// processCPU is the CPU time the process has used, all its threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
