package ingest

import (
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"tempmail/fairshare"
)

// ipLimits holds the connection limits: open connections in all, and per
// client open connections and messages per minute. A client is keyed as
// fairshare keys it, as the HTTP side counts clients: an IPv4 address,
// or an IPv6 address's /64 (one host's block, whose 2^64 addresses would
// otherwise each have the limits of a client).
type ipLimits struct {
	maxTotal   int     // 0: unlimited
	maxConns   int     // per IP; 0: unlimited
	perMinute  float64 // 0: unlimited
	mu         sync.Mutex
	total      int
	conns      map[string]int
	limiters   map[string]*limiter
	lastPruned time.Time
	onRefused  func(ip, why string) // a connection was refused; may be nil
}

type limiter struct {
	*rate.Limiter
	lastUsed time.Time
}

func newIPLimits(maxTotal, maxConns, perMinute int) *ipLimits {
	return &ipLimits{maxTotal: maxTotal, maxConns: maxConns, perMinute: float64(perMinute),
		conns: map[string]int{}, limiters: map[string]*limiter{}}
}

// open counts a new connection from ip; it returns why it is refused (and
// then counts nothing), or "" when it may go on.
func (l *ipLimits) open(ip string) (refused string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxTotal > 0 && l.total >= l.maxTotal {
		return "Too many connections, try again later"
	}
	if l.maxConns > 0 && l.conns[ip] >= l.maxConns {
		return "Too many connections from your address, try again later"
	}
	l.total++
	l.conns[ip]++
	return ""
}

func (l *ipLimits) close(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.conns[ip]--; l.conns[ip] <= 0 {
		delete(l.conns, ip)
	}
}

// connections is how many connections are open now.
func (l *ipLimits) connections() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
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

// limitedListener refuses connections over the limits with a 421
// greeting, as RFC 5321 allows, instead of letting them in.
type limitedListener struct {
	net.Listener
	limits *ipLimits
	// wrap, when set, wraps each connection let in (faultConn).
	wrap func(net.Conn) net.Conn
}

func (ln *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := hostOf(c.RemoteAddr())
		key := clientKey(ip)
		why := ln.limits.open(key)
		if why == "" {
			var conn net.Conn = &countedConn{Conn: c, release: func() { ln.limits.close(key) }}
			if ln.wrap != nil {
				conn = ln.wrap(conn)
			}
			return conn, nil
		}
		if ln.limits.onRefused != nil {
			ln.limits.onRefused(ip, why)
		}
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = c.Write([]byte("421 4.7.0 " + why + "\r\n"))
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

// clientKey is what a client's connections and messages are counted
// under: fairshare.Key of its address, written out.
func clientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	return fairshare.Key(a).String()
}
