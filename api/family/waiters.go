package family

import (
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"tempmail"
)

// Waiters counts the requests held open (long-polls with wait, event
// streams) against --max-waiters: each costs a goroutine, a connection and
// a hub subscription, so a flood of them is refused (503 with Retry-After)
// rather than let to exhaust the process. Each client's are counted too,
// against --max-waiters-per-client (429 with Retry-After beyond), so that
// one client cannot hold every place and keep it.
type Waiters struct {
	max       int64 // 0: unlimited
	perClient int   // 0: unlimited
	held      atomic.Int64
	mu        sync.Mutex
	byClient  map[netip.Prefix]int // clients holding places; at most as many as places held
}

var errTooManyWaiters = tempmail.Errorf(tempmail.Unavailable, "too many requests are being held open; try again shortly")

// waiterRetry is what a client beyond its share of held requests is told
// to wait: one of its waits (at most 60 s) or streams may end by then.
const waiterRetry = 5 * time.Second

func NewWaiters(max, perClient int) Waiters {
	return Waiters{max: int64(max), perClient: perClient, byClient: map[netip.Prefix]int{}}
}

// Acquire takes a place for r, from client's share, or fails: TooMany
// beyond the client's share, errTooManyWaiters beyond the server's. A
// request that holds a place is left out of the request duration
// histogram. release gives the place back; it must be called once.
func (ws *Waiters) Acquire(r *http.Request, client netip.Prefix) (release func(), err error) {
	if ws.perClient > 0 {
		ws.mu.Lock()
		n := ws.byClient[client]
		if n >= ws.perClient {
			ws.mu.Unlock()
			return nil, TooMany(waiterRetry, "your address holds %d requests open (long-polls and event streams), the most it may: close one, or try again shortly", n)
		}
		ws.byClient[client] = n + 1
		ws.mu.Unlock()
	}
	if n := ws.held.Add(1); ws.max > 0 && n > ws.max {
		ws.held.Add(-1)
		ws.releaseClient(client)
		return nil, errTooManyWaiters
	}
	MarkHeld(r)
	return func() {
		ws.held.Add(-1)
		ws.releaseClient(client)
	}, nil
}

func (ws *Waiters) releaseClient(client netip.Prefix) {
	if ws.perClient == 0 {
		return
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if n := ws.byClient[client] - 1; n > 0 {
		ws.byClient[client] = n
	} else {
		delete(ws.byClient, client)
	}
}

// Held is how many requests are held open now.
func (ws *Waiters) Held() int64 { return ws.held.Load() }

// HoldOpen lifts the server's read and write deadlines for a request that
// is held for up to d: the server's WriteTimeout is for ordinary answers,
// and its ReadTimeout would otherwise end the request's context while it
// waits.
func HoldOpen(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(d + writeSlack))
}

// writeSlack is what a held request has to write its answer once its wait
// is over.
const writeSlack = 30 * time.Second
