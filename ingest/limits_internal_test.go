package ingest

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// addrConn is one end of a pipe that says it comes from remote.
type addrConn struct {
	net.Conn
	remote net.Addr
}

func (c addrConn) RemoteAddr() net.Addr { return c.remote }

// chanListener accepts the connections a test gives it.
type chanListener struct{ conns chan net.Conn }

func (l chanListener) Accept() (net.Conn, error) {
	c, ok := <-l.conns
	if !ok {
		return nil, net.ErrClosed
	}
	return c, nil
}
func (l chanListener) Close() error   { return nil }
func (l chanListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv6loopback, Port: 25} }

// TestIPv6ClientsAreCountedByTheir64: the SMTP listener counts an IPv6
// client by its /64, as the HTTP side counts clients (issue 29): with one
// connection allowed per client, a second address of the same /64 is
// greeted 421 and closed, and an address of another /64 is let in. Before,
// every address of a /64 (2^64 of them, one host's) had limits of its own.
func TestIPv6ClientsAreCountedByTheir64(t *testing.T) {
	t.Parallel()
	cl := chanListener{conns: make(chan net.Conn)}
	ln := &limitedListener{Listener: cl, limits: newIPLimits(0, 1, 0)}
	accepted := make(chan net.Conn)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	t.Cleanup(func() { close(cl.conns) })
	connect := func(ip string) net.Conn {
		server, client := net.Pipe()
		t.Cleanup(func() { client.Close(); server.Close() })
		_ = client.SetDeadline(time.Now().Add(10 * time.Second))
		cl.conns <- addrConn{server, &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}}
		return client
	}
	connect("2001:db8:1:2::1")
	first := <-accepted
	refused := connect("2001:db8:1:2:ffff:ffff:ffff:9")
	line, err := bufio.NewReader(refused).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "421 4.7.0 Too many connections from your address") {
		t.Fatalf("a second address of the /64: %q %v, want 421", line, err)
	}
	connect("2001:db8:1:3::1")
	<-accepted // another /64: another client
	first.Close()
	connect("2001:db8:1:2::77")
	<-accepted // the /64's place is free again
}

// The message rate, too, is the /64's.
func TestIPv6MessageRateIsTheir64s(t *testing.T) {
	t.Parallel()
	l := newIPLimits(0, 0, 1)
	now := time.Now()
	if !l.allowMessage(clientKey("2001:db8::1"), now) || l.allowMessage(clientKey("2001:db8::2"), now) ||
		!l.allowMessage(clientKey("2001:db8:0:1::1"), now) || !l.allowMessage(clientKey("192.0.2.1"), now) {
		t.Error("a /64 is not one client")
	}
	if clientKey("::ffff:192.0.2.1") != clientKey("192.0.2.1") || clientKey("not an address") != "not an address" {
		t.Error("keys")
	}
}
