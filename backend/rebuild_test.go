package backend

import (
	"log/slog"
	"runtime/debug"
	"testing"
)

// TestFitMemoryLimit: a rebuild's soft memory limit is raised to twice
// what the process holds live plus the replay's headroom when that is
// more, and left alone otherwise.
func TestFitMemoryLimit(t *testing.T) {
	was := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(was)
	// What this test holds live: the limit must make room for it.
	held := make([]byte, 64<<20)
	fitMemoryLimit(64<<20, slog.New(slog.DiscardHandler))
	if got := debug.SetMemoryLimit(-1); got < 2*int64(len(held))+replayHeadroom {
		t.Errorf("limit %d MiB with %d MiB live, want at least %d MiB", got>>20, len(held)>>20, (2*int64(len(held))+replayHeadroom)>>20)
	}
	held[0] = 1 // live until here

	debug.SetMemoryLimit(was)
	fitMemoryLimit(1<<40, slog.New(slog.DiscardHandler))
	if got := debug.SetMemoryLimit(-1); got != was {
		t.Errorf("limit %d, want it left at %d", got, was)
	}
}
