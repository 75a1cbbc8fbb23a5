package retry

import (
	"context"
	"time"
)

// Schedule says how long to wait before each try after the first: a wait
// that starts at First and grows, by doubling or by First each time, up
// to Max.
type Schedule struct {
	First, Max time.Duration
	Linear     bool // grow by First each time rather than double
}

// The schedules of the service, one for each kind of wait.
var (
	// Publish: a write to the log whose answer did not come, or a
	// stream without a leader yet; quick at first, patient after.
	Publish = Schedule{First: 50 * time.Millisecond, Max: time.Second}
	// Race: a change that lost a race (an address claimed meanwhile, an
	// inbox that ended while mail was on its way), tried again once the
	// views have caught up: a little longer each time.
	Race = Schedule{First: 20 * time.Millisecond, Max: time.Second, Linear: true}
	// Apply: the views' writes of a batch that failed (a lost
	// compare-and-swap, a leader's election).
	Apply = Schedule{First: 10 * time.Millisecond, Max: time.Second}
	// PutOff: a webhook delivery its subscription's lane cannot take now.
	PutOff = Schedule{First: 5 * time.Second, Max: 10 * time.Minute}
	// Start: a start-up step JetStream cannot answer yet (leaders being
	// elected in a new cluster).
	Start = Schedule{First: 200 * time.Millisecond, Max: time.Second, Linear: true}
	// Resume: a consumer or watcher that could not start (NATS away),
	// tried again once a second for as long as the process runs.
	Resume = Schedule{First: time.Second, Max: time.Second}
)

// Wait is the wait before the try after attempt failed tries (attempt
// from 0: the wait after the first).
func (s Schedule) Wait(attempt int) time.Duration {
	if attempt < 0 {
		attempt = 0
	}
	if s.Linear {
		return min(s.First*time.Duration(attempt+1), s.Max)
	}
	if attempt > 30 {
		return s.Max // no shift past what a Duration holds
	}
	return min(s.First<<attempt, s.Max)
}

// Sleep waits s.Wait(attempt); it reports false, at once, when ctx ends
// first.
func (s Schedule) Sleep(ctx context.Context, attempt int) bool {
	t := time.NewTimer(s.Wait(attempt))
	defer t.Stop()
	select {
	case <-t.C:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}
