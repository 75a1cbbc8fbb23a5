package fairshare

import (
	"net/netip"
	"sync"
	"time"

	"tempmail/config"
)

// Limiter limits what each client creates (or sends, or has stored) to a
// config.Rate: N units per period, taken one at a time (Take) or many
// (TakeN: the bytes of a message times its recipients).
//
// Its memory is bounded whatever the number of clients: buckets live in
// two generations, and every period the older is dropped and the newer
// becomes it. A bucket left alone for a whole period has refilled, so
// dropping it forgets nothing; one that is used again moves to the newer
// generation. When the newer fills up (maxTrackedClients) the generations
// turn early, and a bucket dropped before it refilled comes back full: a
// leniency towards clients that only a flood of distinct clients grants.
//
// A nil *Limiter allows everything.
type Limiter struct {
	rate config.Rate
	mu   sync.Mutex
	cur  map[netip.Prefix]*bucket
	prev map[netip.Prefix]*bucket
	born time.Time // when cur became the newer generation
}

// maxTrackedClients bounds the clients each generation of buckets holds.
const maxTrackedClients = 1 << 16

// bucket is one client's creations still allowed, as of at.
type bucket struct {
	tokens float64
	at     time.Time
}

// New returns a Limiter for rate; nil when rate is unlimited.
func New(rate config.Rate) *Limiter {
	if rate.Unlimited() {
		return nil
	}
	return &Limiter{rate: rate, cur: map[netip.Prefix]*bucket{}}
}

// Rate is the limit; zero for a nil Limiter.
func (l *Limiter) Rate() config.Rate {
	if l == nil {
		return config.Rate{}
	}
	return l.rate
}

// Take spends one of client's creations at now, or says how long until it
// has one.
func (l *Limiter) Take(client netip.Prefix, now time.Time) (ok bool, wait time.Duration) {
	return l.TakeN(client, 1, now)
}

// TakeN spends n of client's allowance at now, all of it or nothing, or
// says how long until it has n. An n larger than the bucket never fits:
// its wait is the time to fill the bucket whole.
func (l *Limiter) TakeN(client netip.Prefix, n float64, now time.Time) (ok bool, wait time.Duration) {
	if l == nil {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(client, now)
	if b.tokens >= n {
		b.tokens -= n
		return true, 0
	}
	return false, time.Duration((min(n, float64(l.rate.N)) - b.tokens) / l.perNanosecond())
}

// Has reports whether client has at least n left at now; it takes
// nothing.
func (l *Limiter) Has(client netip.Prefix, n float64, now time.Time) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bucket(client, now).tokens >= n
}

// Give returns n to client's allowance (what TakeN spent on something
// that did not happen after all), up to a full bucket.
func (l *Limiter) Give(client netip.Prefix, n float64, now time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(client, now)
	b.tokens = min(float64(l.rate.N), b.tokens+n)
}

// bucket is client's bucket, refilled to now; l.mu is held.
func (l *Limiter) bucket(client netip.Prefix, now time.Time) *bucket {
	if now.Sub(l.born) >= l.rate.Per || len(l.cur) >= maxTrackedClients {
		l.prev, l.cur, l.born = l.cur, make(map[netip.Prefix]*bucket, len(l.cur)), now
	}
	b := l.cur[client]
	if b == nil {
		if b = l.prev[client]; b != nil {
			delete(l.prev, client)
		} else {
			b = &bucket{tokens: float64(l.rate.N), at: now}
		}
		l.cur[client] = b
	}
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(float64(l.rate.N), b.tokens+float64(elapsed)*l.perNanosecond())
		b.at = now
	}
	return b
}

// perNanosecond is how much of a bucket refills in a nanosecond: in
// floating point, as a billion bytes an hour is a fraction of a byte.
func (l *Limiter) perNanosecond() float64 { return float64(l.rate.N) / float64(l.rate.Per) }

// Key is a client's address as a share's key: an IPv4 address alone, an
// IPv6 address's /64, the block one host is given (SLAAC and RFC 6177),
// which would otherwise be 2^64 clients.
func Key(a netip.Addr) netip.Prefix {
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p
	}
	return netip.PrefixFrom(a, a.BitLen())
}
