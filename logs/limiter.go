package logs

import (
	"net/netip"
	"sync"
	"time"
)

// Limiter bounds the lines written about what clients do, such as a
// refused recipient: at most perClient lines about one client and perAll
// about all clients together in each window. What a line left out would
// have said is counted instead, and the next line written about the same
// client carries the count (Verdict.Suppressed). A client that sends ten
// thousand refused commands then costs the log a few lines, and the
// operator still learns how many there were; the metrics count them all.
//
// A client is a key as fairshare.Key makes it (an IPv6 client by its
// /64). perAll bounds the lines of a sender that rotates through many
// such keys.
//
// Its memory is bounded whatever the number of clients: counts live in two
// generations, and every window the older is dropped and the newer
// becomes it, or sooner when the newer holds maxClients. A count left
// alone for a whole window has no lines left to limit; what it had left
// out is kept as one sum, which the next line written, about any client,
// carries (Verdict.Forgotten). A count dropped sooner, under a flood of
// distinct clients, comes back with its window new: perAll still holds.
//
// A nil *Limiter writes every line.
type Limiter struct {
	perClient, perAll int
	window            time.Duration

	mu        sync.Mutex
	cur, prev map[netip.Prefix]lines
	born      time.Time // when cur became the newer generation
	all       lines     // the lines about all clients
	forgotten int       // left out by clients whose counts were dropped
}

// maxClients bounds the clients each generation holds: two generations of
// 16,384 are about two megabytes.
const maxClients = 1 << 14

// lines counts the lines written in a window, and those left out since the
// last line written.
type lines struct {
	start   time.Time // the window began
	written int
	left    int
}

// Verdict is whether a line is written, and what it is to say of the
// lines left out before it.
type Verdict struct {
	Write bool
	// Suppressed is how many lines about the client were left out since
	// the last one written (or since it was first seen).
	Suppressed int
	// Forgotten is how many lines about other clients were left out and
	// never reported: their counts were dropped before a line about them
	// was written. Each is reported once, by the next line written.
	Forgotten int
}

// Attrs are the verdict's counts as log attributes: suppressed and
// suppressed_forgotten, each only when not zero.
func (v Verdict) Attrs() []any {
	var a []any
	if v.Suppressed > 0 {
		a = append(a, "suppressed", v.Suppressed)
	}
	if v.Forgotten > 0 {
		a = append(a, "suppressed_forgotten", v.Forgotten)
	}
	return a
}

// NewLimiter returns a Limiter of perClient lines about a client and
// perAll about all of them in each window.
func NewLimiter(perClient, perAll int, window time.Duration) *Limiter {
	return &Limiter{perClient: perClient, perAll: perAll, window: window, cur: map[netip.Prefix]lines{}}
}

// Allow decides whether a line about client, standing for n events (one
// refusal; or a session's summary of many), is written at now. When it is
// not, its n are counted as left out, for the client's next line to say.
func (l *Limiter) Allow(client netip.Prefix, n int, now time.Time) Verdict {
	if l == nil {
		return Verdict{Write: true}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.take(client, now)
	l.all = l.all.renewed(now, l.window)
	if c.written >= l.perClient || l.all.written >= l.perAll {
		c.left += n
		l.cur[client] = c
		return Verdict{}
	}
	v := Verdict{Write: true, Suppressed: c.left, Forgotten: l.forgotten}
	c.written++
	c.left = 0
	l.cur[client] = c
	l.all.written++
	l.forgotten = 0
	return v
}

// take is client's count as of now, moved to the newer generation; l.mu
// is held.
func (l *Limiter) take(client netip.Prefix, now time.Time) lines {
	if now.Sub(l.born) >= l.window || len(l.cur) >= maxClients {
		for _, c := range l.prev {
			l.forgotten += c.left
		}
		l.prev, l.cur, l.born = l.cur, make(map[netip.Prefix]lines, len(l.cur)), now
	}
	c, ok := l.cur[client]
	if !ok {
		c = l.prev[client]
		delete(l.prev, client)
	}
	return c.renewed(now, l.window)
}

// renewed is c with a new window once its own has passed; what it left
// out stays until a line says it.
func (c lines) renewed(now time.Time, window time.Duration) lines {
	if now.Sub(c.start) >= window {
		c.start, c.written = now, 0
	}
	return c
}
