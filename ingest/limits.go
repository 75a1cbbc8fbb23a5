package ingest

import (
	"net"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// ipLimits holds the per-client limits: open connections and messages per
// minute, by IP address.
type ipLimits struct {
	maxConns   int     // 0: unlimited
	perMinute  float64 // 0: unlimited
	mu         sync.Mutex
	conns      map[string]int
	limiters   map[string]*limiter
	lastPruned time.Time
	onRefused  func() // a connection was refused; may be nil
}

type limiter struct {
	*rate.Limiter
	lastUsed time.Time
}

func newIPLimits(maxConns, perMinute int) *ipLimits {
	return &ipLimits{maxConns: maxConns, perMinute: float64(perMinute),
		conns: map[string]int{}, limiters: map[string]*limiter{}}
}

// open counts a new connection from ip; false means over the limit (and
// nothing was counted).
func (l *ipLimits) open(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxConns > 0 && l.conns[ip] >= l.maxConns {
		return false
	}
	l.conns[ip]++
	return true
}

func (l *ipLimits) close(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conns[ip]--; l.conns[ip] <= 0 {
		delete(l.conns, ip)
	}
}

// allowMessage takes one message from ip's budget.
func (l *ipLimits) allowMessage(ip string, now time.Time) bool {
	if l.perMinute == 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastPruned) > time.Minute {
		// A limiter idle for a minute is full again: forget it.
		for k, v := range l.limiters {
			if now.Sub(v.lastUsed) > time.Minute {
				delete(l.limiters, k)
			}
		}
		l.lastPruned = now
	}
	lim := l.limiters[ip]
	if lim == nil {
		lim = &limiter{Limiter: rate.NewLimiter(rate.Limit(l.perMinute/60), int(max(l.perMinute, 1)))}
		l.limiters[ip] = lim
	}
	lim.lastUsed = now
	return lim.AllowN(now, 1)
}

// limitedListener refuses connections over the per-IP limit with a 421
// greeting, as RFC 5321 allows, instead of letting them in.
type limitedListener struct {
	net.Listener
	limits *ipLimits
}

func (ln *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := hostOf(c.RemoteAddr())
		if ln.limits.open(ip) {
			return &countedConn{Conn: c, release: func() { ln.limits.close(ip) }}, nil
		}
		if ln.limits.onRefused != nil {
			ln.limits.onRefused()
		}
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = c.Write([]byte("421 4.7.0 Too many connections from your address, try again later\r\n"))
		_ = c.Close()
	}
}

type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

func hostOf(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}
