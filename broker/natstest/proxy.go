package natstest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Proxy sits between NATS clients and a NATS server on loopback and can
// misbehave on purpose: drop the server's answers to chosen publishes (the
// publish is stored, the client never hears so), cut every connection, or
// send clients a protocol error, which makes the client library close the
// connection for good.
//
// It reads the NATS protocol in both directions only as far as it must:
// the client's PUB and HPUB lines (to learn the reply subject of each
// publish) and the server's MSG and HMSG lines (to drop the answers on those
// subjects). Everything else is passed through as it comes.
type Proxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	mu      sync.Mutex
	conns   []net.Conn
	drop    func(subject string) bool // publishes whose answer is dropped
	budget  int                       // how many more answers to drop; < 0: all
	fake    func(subject string) bool // publishes whose answer is scripted
	script  [][]byte                  // the next such answers, in order; nil: dropped
	pending map[string][]byte         // reply subjects whose answer is dropped (nil) or replaced
	dropped int
}

// StartProxy listens on a loopback port and forwards every connection to
// target (host:port). It stops at the end of the test.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{t: t, ln: ln, target: target, pending: map[string][]byte{}}
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
	})
	return p
}

// URL is the proxy's address as a NATS URL.
func (p *Proxy) URL() string { return "nats://" + p.ln.Addr().String() }

// DropAnswers makes the proxy drop the server's answers to the next n
// publishes (every one, when n < 0) whose subject match accepts; the
// publishes themselves reach the server. DropAnswers(nil, 0) stops it.
func (p *Proxy) DropAnswers(match func(subject string) bool, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drop, p.budget = match, n
}

// ScriptAnswers makes the proxy answer the next publishes whose subject
// match accepts with answers, one each, in order, instead of the server's
// answers: a nil one is dropped, as DropAnswers does. The publishes
// themselves reach the server. It replays what a cluster answers around
// a leader's stall: a first try stored and never answered, then a second
// answered "duplicate message id is in process".
func (p *Proxy) ScriptAnswers(match func(subject string) bool, answers ...[]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fake, p.script = match, answers
}

// Dropped is how many answers were dropped so far.
func (p *Proxy) Dropped() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

// Cut closes every connection, as a network failure would; clients may
// connect again.
func (p *Proxy) Cut() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// SendError sends every connected client a protocol error line, such as a
// server sends before it closes a connection (-ERR 'maximum control line
// exceeded'); the client library then closes the connection for good.
func (p *Proxy) SendError(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		if pc, ok := c.(*proxyClient); ok {
			pc.send([]byte("-ERR '" + msg + "'\r\n"))
		}
	}
}

// proxyClient is the client side of one proxied connection; the server
// side writes to it under its lock, so injected lines never split a message.
type proxyClient struct {
	net.Conn
	mu sync.Mutex
}

func (c *proxyClient) send(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.Conn.Write(b)
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		client := &proxyClient{Conn: c}
		p.mu.Lock()
		p.conns = append(p.conns, client, s)
		p.mu.Unlock()
		go p.fromClient(client, s)
		go p.fromServer(s, client)
	}
}

// fromClient passes the client's bytes on, noting the reply subjects of
// publishes whose answers are to be dropped.
func (p *Proxy) fromClient(c *proxyClient, s net.Conn) {
	defer s.Close()
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		out := append([]byte(nil), line...)
		f := strings.Fields(string(line))
		if n, reply, ok := publishLine(f); ok {
			body := make([]byte, n+2)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			out = append(out, body...)
			p.mu.Lock()
			switch {
			case reply == "":
			case p.fake != nil && len(p.script) > 0 && p.fake(f[1]):
				p.pending[reply], p.script = p.script[0], p.script[1:]
			case p.drop != nil && p.budget != 0 && p.drop(f[1]):
				p.pending[reply] = nil
				p.budget--
			}
			p.mu.Unlock()
		}
		if _, err := s.Write(out); err != nil {
			return
		}
	}
}

// publishLine reads PUB <subject> [reply] <size> and
// HPUB <subject> [reply] <header size> <total size>.
func publishLine(f []string) (size int, reply string, ok bool) {
	if len(f) < 3 {
		return 0, "", false
	}
	switch strings.ToUpper(f[0]) {
	case "PUB":
		if len(f) == 4 {
			reply = f[2]
		}
	case "HPUB":
		if len(f) == 5 {
			reply = f[2]
		}
	default:
		return 0, "", false
	}
	n, err := strconv.Atoi(f[len(f)-1])
	return n, reply, err == nil
}

// fromServer passes the server's bytes on, leaving out the messages sent to
// reply subjects marked for dropping.
func (p *Proxy) fromServer(s net.Conn, c *proxyClient) {
	defer c.Close()
	r := bufio.NewReaderSize(s, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		out := append([]byte(nil), line...)
		f := strings.Fields(string(line))
		subject, n, ok := messageLine(f)
		if ok {
			body := make([]byte, n+2)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			p.mu.Lock()
			answer, scripted := p.pending[subject]
			delete(p.pending, subject)
			if scripted && answer == nil {
				p.dropped++
			}
			p.mu.Unlock()
			switch {
			case scripted && answer == nil:
				continue
			case scripted:
				// MSG <subject> <sid> <size>: the answer in the place
				// of the server's, to the same subscription.
				c.send(fmt.Appendf(nil, "MSG %s %s %d\r\n%s\r\n", subject, f[2], len(answer), answer))
				continue
			}
			out = append(out, body...)
		}
		c.send(out)
	}
}

// messageLine reads MSG <subject> <sid> [reply] <size> and
// HMSG <subject> <sid> [reply] <header size> <total size>.
func messageLine(f []string) (subject string, size int, ok bool) {
	if len(f) < 4 {
		return "", 0, false
	}
	switch strings.ToUpper(f[0]) {
	case "MSG", "HMSG":
	default:
		return "", 0, false
	}
	n, err := strconv.Atoi(f[len(f)-1])
	return f[1], n, err == nil
}
