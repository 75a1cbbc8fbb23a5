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

// receivedAfter asks find for what q matches, held up to wait, and while
// what it finds was received at or before q.AfterTime asks again for what
// came after that message: the service answers the newest match, so once
// it is skipped only mail that arrives later is left (ids sort by arrival,
// and the service's after counts only newer ones). The API has no
// parameter for a time; this is how "received after" is asked.
func receivedAfter[T any](q Query, wait time.Duration, find func(Query, time.Duration) (T, error), stamp func(T) (id string, at time.Time)) (T, error) {
	var zero T
	deadline := time.Now().Add(wait)
	for skips := 0; ; skips++ {
		v, err := find(q, wait)
		if err != nil || q.AfterTime.IsZero() {
			return v, err
		}
		id, at := stamp(v)
		if at.After(q.AfterTime) {
			return v, nil
		}
		if id <= q.After {
			// Not tempmail: it would be asked the same again and again.
			return zero, fmt.Errorf("the service answered message %q for after=%q, which is not newer", Printable(id), Printable(q.After))
		}
		left := time.Until(deadline)
		if skips > 0 && left <= 0 {
			return zero, ErrNotYet // what came since was received before AfterTime too
		}
		q.After, wait = id, holdFor(left, maxHold)
	}
}
