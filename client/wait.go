package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// maxHold is the longest the service holds one request (wait=60).
const maxHold = 60 * time.Second

// minGap is the least time between the starts of two requests of one wait.
// A held request is answered early only when the service is stopping (or
// says it is busy); the next then waits this long rather than ask again at
// once, and again.
const minGap = time.Second

// waitFor calls find, each time with the wait still left (whole seconds,
// at most MaxWait), until it finds something, fails otherwise, or the time
// is up (ErrTimeout).
func waitFor[T any](ctx context.Context, c *Client, timeout time.Duration, find func(context.Context, time.Duration) (T, error)) (T, error) {
	var zero T
	deadline := time.Now().Add(timeout)
	limit := c.MaxWait
	if limit <= 0 || limit > maxHold {
		limit = maxHold
	}
	for {
		start := time.Now()
		hold := holdFor(deadline.Sub(start), limit)
		v, err := find(ctx, hold)
		if err == nil {
			return v, nil
		}
		pause, again := time.Duration(0), errors.Is(err, ErrNotYet)
		if e := (*Error)(nil); c.RetryBusy && errors.As(err, &e) &&
			(e.Status == http.StatusServiceUnavailable || e.Status == http.StatusTooManyRequests) {
			pause, again = max(e.RetryAfter, minGap), true
		}
		if !again {
			return zero, err
		}
		if gap := minGap - time.Since(start); gap > pause {
			pause = gap
		}
		if !time.Now().Add(pause).Before(deadline) {
			return zero, fmt.Errorf("%w: nothing matched within %s (%v)", ErrTimeout, timeout, err)
		}
		select {
		case <-ctx.Done():
			return zero, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// holdFor is how long to ask the service to hold a request when left
// remains of a wait: whole seconds (the service takes no less), rounded up,
// at most limit; 0 when nothing remains (look once).
func holdFor(left, limit time.Duration) time.Duration {
	if left <= 0 {
		return 0
	}
	secs := (left + time.Second - 1) / time.Second * time.Second
	return min(secs, limit.Truncate(time.Second))
}
