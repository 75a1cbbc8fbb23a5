package engine

import (
	"context"
	"sort"
	"sync"
	"time"

	"tempmail/broker"
)

// stuckAfter is how long a partition may keep failing on one event (or to
// reach its consumer) before it counts as not running: a few retries are
// normal while a cluster elects leaders, a minute of them is not.
const stuckAfter = 30 * time.Second

// health records what keeps the views from running: partitions that halted
// on an event this build cannot read or that keep failing, and a watcher
// that cannot watch. Workers and the watcher report to it; readiness reads
// it.
type health struct {
	mu      sync.Mutex
	failing map[string]failure // by component: "partition p3", "views watcher"
}

type failure struct {
	since  time.Time
	halted bool // will not recover without another build
}

func newHealth() *health { return &health{failing: map[string]failure{}} }

// fail records that what failed now; the first failure's time is kept.
func (h *health) fail(what string, halted bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.failing[what]
	if !ok {
		f.since = time.Now()
	}
	f.halted = f.halted || halted
	h.failing[what] = f
}

// ok records that what works again.
func (h *health) ok(what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.failing, what)
}

// list returns what has failed for longer than stuckAfter, or halted, sorted.
func (h *health) list(now time.Time) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for what, f := range h.failing {
		if f.halted || now.Sub(f.since) >= stuckAfter {
			out = append(out, what)
		}
	}
	sort.Strings(out)
	return out
}

// Failing names the parts of the views that are not running: a partition
// halted on an event it cannot read, or failing for more than half a
// minute; the watcher, when it has been unable to watch as long. Empty when
// all is well.
func (v *Engine) Failing() []string { return v.health.list(time.Now()) }

// Ping fails when the views bucket cannot take writes now: its leader is
// out of reach, or has lost touch with the majority of its copies
// (broker.Quorum).
func (v *Engine) Ping(ctx context.Context) error {
	return broker.Quorum(ctx, v.js, "KV_"+BucketName(v.gen))
}

func partitionComponent(part string) string { return "projection partition " + part }

const watcherComponent = "views watcher"
