package natstest

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// Fault is what a RouteProxy does to the traffic of a link.
type Fault int

const (
	// Heal passes everything.
	Heal Fault = iota
	// Drop holds every byte, in both directions, as a network that loses
	// packets: connections stay open and stall, and what they held moves
	// on, in order, once healed (or the nodes give up on them first).
	Drop
	// Refuse closes the link's connections, and every new one at once,
	// as a host that resets them.
	Refuse
)

func (f Fault) String() string {
	return [...]string{"heal", "drop", "refuse"}[f]
}

// RouteProxy stands in front of one cluster node's route listener: every
// other node reaches it through here. The node advertises the proxy's
// address (--cluster-advertise), and every node's --routes names the
// proxies, so that no route bypasses one; a test partitions nodes by
// setting faults. Each connection is attributed to the node that dialed
// it, by the server_name of the INFO that the dialing server sends first.
type RouteProxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cond   *sync.Cond
	conns  map[*routeConn]bool
	faults map[string]Fault // by the dialing node's name; "*": every dialer
	closed bool
}

// routeConn is one proxied route connection.
type routeConn struct {
	client, server net.Conn
	peer           string // the dialing node's name; "" until its INFO came
	closed         bool
}

// StartRouteProxy listens on a loopback port and forwards every
// connection to target, a node's route listener (host:port). It stops at
// the end of the test.
func StartRouteProxy(t testing.TB, target string) *RouteProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &RouteProxy{ln: ln, target: target, conns: map[*routeConn]bool{}, faults: map[string]Fault{}}
	p.cond = sync.NewCond(&p.mu)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port, what its node advertises.
func (p *RouteProxy) Addr() string { return p.ln.Addr().String() }

// Set applies f to the connections dialed by the node named peer ("*":
// every connection, whoever dialed it): Drop holds their bytes, Refuse
// closes them, Heal lets them go on.
func (p *RouteProxy) Set(peer string, f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f == Heal {
		delete(p.faults, peer)
	} else {
		p.faults[peer] = f
	}
	for rc := range p.conns {
		if p.faultLocked(rc) == Refuse {
			p.closeLocked(rc)
		}
	}
	p.cond.Broadcast()
}

// faultLocked is what applies to rc now: the worse of the faults set for
// every dialer and for its own.
func (p *RouteProxy) faultLocked(rc *routeConn) Fault {
	f := p.faults["*"]
	if rc.peer != "" {
		f = max(f, p.faults[rc.peer])
	}
	return f
}

func (p *RouteProxy) closeLocked(rc *routeConn) {
	if rc.closed {
		return
	}
	rc.closed = true
	rc.client.Close()
	rc.server.Close()
	delete(p.conns, rc)
	p.cond.Broadcast()
}

func (p *RouteProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for rc := range p.conns {
		p.closeLocked(rc)
	}
}

func (p *RouteProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refused := p.closed || p.faults["*"] == Refuse
		p.mu.Unlock()
		if refused {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		rc := &routeConn{client: c, server: s}
		p.mu.Lock()
		p.conns[rc] = true
		p.mu.Unlock()
		go p.fromDialer(rc)
		go p.pipe(rc, s, c)
	}
}

// fromDialer learns who dialed from the INFO it sends after its CONNECT,
// then passes its bytes on like pipe.
func (p *RouteProxy) fromDialer(rc *routeConn) {
	r := bufio.NewReaderSize(rc.client, 64<<10)
	for range 4 { // CONNECT, then INFO; a few lines at most
		line, err := r.ReadSlice('\n')
		if !p.pass(rc) || write(rc.server, line) != nil || err != nil {
			p.drop(rc)
			return
		}
		if rest, ok := strings.CutPrefix(string(line), "INFO "); ok {
			var info struct {
				Name string `json:"server_name"`
			}
			_ = json.Unmarshal([]byte(rest), &info)
			p.mu.Lock()
			rc.peer = info.Name
			if p.faultLocked(rc) == Refuse {
				p.closeLocked(rc)
			}
			p.mu.Unlock()
			break
		}
	}
	p.pipe(rc, r, rc.server)
}

// pipe copies from one side to the other while the link passes.
func (p *RouteProxy) pipe(rc *routeConn, from io.Reader, to net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 && (!p.pass(rc) || write(to, buf[:n]) != nil) {
			p.drop(rc)
			return
		}
		if err != nil {
			p.drop(rc)
			return
		}
	}
}

// pass waits while rc's link drops traffic; it reports false once the
// connection is refused or closed.
func (p *RouteProxy) pass(rc *routeConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if rc.closed {
			return false
		}
		switch p.faultLocked(rc) {
		case Heal:
			return true
		case Refuse:
			p.closeLocked(rc)
			return false
		}
		p.cond.Wait()
	}
}

func (p *RouteProxy) drop(rc *routeConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeLocked(rc)
}

func write(c net.Conn, b []byte) error {
	_, err := c.Write(b)
	return err
}
