package api

import (
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"tempmail/config"
)

// creates limits what each client creates (inboxes in every family,
// webhook subscriptions in both places) to --create-rate-per-client: a
// bucket of N per client, refilled evenly over the period, so a client may
// make N at once and then N a period.
//
// Its memory is bounded whatever the number of clients: buckets live in
// two generations, and every period the older is dropped and the newer
// becomes it. A bucket left alone for a whole period has refilled, so
// dropping it forgets nothing; one that is used again moves to the newer
// generation. When the newer fills up (maxTrackedClients) the generations
// turn early, and a bucket dropped before it refilled comes back full: a
// leniency towards clients that only a flood of distinct clients grants.
type creates struct {
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

func newCreates(rate config.Rate) *creates {
	if rate.Unlimited() {
		return nil
	}
	return &creates{rate: rate, cur: map[netip.Prefix]*bucket{}}
}

// take spends one of client's creations at now, or says how long until it
// has one.
func (c *creates) take(client netip.Prefix, now time.Time) (ok bool, wait time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.born) >= c.rate.Per || len(c.cur) >= maxTrackedClients {
		c.prev, c.cur, c.born = c.cur, make(map[netip.Prefix]*bucket, len(c.cur)), now
	}
	b := c.cur[client]
	if b == nil {
		if b = c.prev[client]; b != nil {
			delete(c.prev, client)
		} else {
			b = &bucket{tokens: float64(c.rate.N), at: now}
		}
		c.cur[client] = b
	}
	perToken := c.rate.Per / time.Duration(c.rate.N)
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(float64(c.rate.N), b.tokens+float64(elapsed)/float64(perToken))
		b.at = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * float64(perToken))
}

// limitCreates refuses a creation beyond the client's share: 429 with
// Retry-After, in the family's shape.
func (s *Server) limitCreates(next http.Handler) http.Handler {
	if s.creates == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := s.creates.take(s.clientOf(r), time.Now()); !ok {
			writeError(w, r, s.log, familyOf(r), tooMany(wait,
				"too many inboxes and webhooks made from your address (at most %s); try again in %d s",
				rateText(s.cfg.CreateRatePerClient), retryAfter(wait).seconds()))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// rateText says a rate in words: "120 a minute".
func rateText(r config.Rate) string {
	per := map[time.Duration]string{time.Second: "a second", time.Minute: "a minute", time.Hour: "an hour"}[r.Per]
	return strconv.Itoa(r.N) + " " + per
}
