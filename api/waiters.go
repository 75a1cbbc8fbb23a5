package api

import (
	"net/http"
	"sync/atomic"
	"time"

	"tempmail"
)

// waiters counts the requests held open (long-polls with wait, event
// streams) against --max-waiters: each costs a goroutine, a connection and
// a hub subscription, so a flood of them is refused (503 with Retry-After)
// rather than let to exhaust the process.
type waiters struct {
	max  int64 // 0: unlimited
	held atomic.Int64
}

var errTooManyWaiters = tempmail.Errorf(tempmail.Unavailable, "too many requests are being held open; try again shortly")

// acquire takes a place for r, or fails with errTooManyWaiters. A request
// that holds a place is left out of the request duration histogram.
func (ws *waiters) acquire(r *http.Request) (release func(), err error) {
	if n := ws.held.Add(1); ws.max > 0 && n > ws.max {
		ws.held.Add(-1)
		return nil, errTooManyWaiters
	}
	markHeld(r)
	return func() { ws.held.Add(-1) }, nil
}

// Held is how many requests are held open now.
func (ws *waiters) Held() int64 { return ws.held.Load() }

// holdOpen lifts the server's read and write deadlines for a request that
// is held for up to d: the server's WriteTimeout is for ordinary answers,
// and its ReadTimeout would otherwise end the request's context while it
// waits.
func holdOpen(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(d + writeSlack))
}

// writeSlack is what a held request has to write its answer once its wait
// is over.
const writeSlack = 30 * time.Second
