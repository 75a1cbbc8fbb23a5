package command

import (
	"context"
	"slices"

	"github.com/cespare/xxhash/v2"

	"tempmail"
)

// Turns makes racing changes of one aggregate in this process take turns,
// where the log would otherwise decide their race a round at a time: forty
// creations racing at a tenant's quota each lose to one winner a round, and
// each loss costs publishes and a wait for the views, until the busiest
// were out of time (503) before their turn came. Taking turns, each
// creation finds the last one applied; the log still decides between
// processes. Keys share a fixed number of turns by their hash, so its
// memory is bounded whatever the keys.
type Turns struct {
	turn [64]chan struct{}
}

// NewTurns returns turns for the commands of one process.
func NewTurns() *Turns {
	t := &Turns{}
	for i := range t.turn {
		t.turn[i] = make(chan struct{}, 1)
	}
	return t
}

// take waits for key's turn, or for ctx to end; release ends the turn. A
// nil *Turns gives every caller its turn at once.
func (t *Turns) take(ctx context.Context, key string) (release func(), err error) {
	return t.takeAll(ctx, []string{key})
}

// takeAll waits for the turns of every key: each turn once (keys may share
// one), always in the same order, so that two callers taking turns of the
// same keys never wait for each other's.
func (t *Turns) takeAll(ctx context.Context, keys []string) (release func(), err error) {
	if t == nil {
		return func() {}, nil
	}
	var at []int
	for _, k := range keys {
		at = append(at, int(xxhash.Sum64String(k)%uint64(len(t.turn))))
	}
	slices.Sort(at)
	at = slices.Compact(at)
	taken := 0
	release = func() {
		for _, i := range at[:taken] {
			<-t.turn[i]
		}
	}
	for _, i := range at {
		select {
		case t.turn[i] <- struct{}{}:
			taken++
		case <-ctx.Done():
			release()
			return nil, tempmail.Wrap(tempmail.Unavailable, ctx.Err(), "too many changes of this tenant at once; try again")
		}
	}
	return release, nil
}
