package mailauth

import (
	"context"
	"sync"
	"time"
)

// answersHold gathers how long the answers a conclusion was drawn from
// hold: the earliest expiry among them, or never, when one of them gave
// none (no cache, no answer in time, a name not asked).
type answersHold struct {
	mu    sync.Mutex
	until time.Time
	never bool
}

type holdKey struct{}

// withHold returns ctx whose queries note in h how long their answers hold.
func withHold(ctx context.Context, h *answersHold) context.Context {
	return context.WithValue(ctx, holdKey{}, h)
}

func holdOf(ctx context.Context) *answersHold {
	h, _ := ctx.Value(holdKey{}).(*answersHold)
	return h
}

// note takes one answer's expiry into account; nil h notes nothing.
func (h *answersHold) note(expires time.Time) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case expires.IsZero():
		h.never = true
	case h.until.IsZero() || expires.Before(h.until):
		h.until = expires
	}
}

// holds says until when the answers noted all hold; false when one does not.
func (h *answersHold) holds() (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.until, !h.never && !h.until.IsZero()
}
