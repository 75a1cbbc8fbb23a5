package webhooks

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"tempmail"
)

// rebinding answers a name with a public address the first time and a
// loopback one afterwards: the DNS trick that gets a target checked at
// subscription to lead somewhere else at delivery.
type rebinding struct {
	mu    sync.Mutex
	calls int
}

func (r *rebinding) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls == 1 {
		return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// TestGuardChecksTheAddressActuallyDialled: a host that passed the check at
// subscription and resolves to loopback at delivery is refused on the
// address dialled, and nothing reaches the server there.
func TestGuardChecksTheAddressActuallyDialled(t *testing.T) {
	t.Parallel()
	reached := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	g := newGuard(&rebinding{}, false)
	if _, err := g.CheckURL(context.Background(), "http://rebind.test:"+port+"/hook"); err != nil {
		t.Fatalf("at subscription the host is public: %v", err)
	}
	client := &http.Client{Transport: &http.Transport{DialContext: g.dial}}
	_, err := client.Post("http://rebind.test:"+port+"/hook", "application/json", strings.NewReader("{}"))
	var refused *refusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.msg, "127.0.0.1: it is a loopback address") {
		t.Errorf("delivery after rebinding: %v", err)
	}
	if reached {
		t.Error("the request reached the loopback server")
	}

	// With --webhook-allow-private the same goes through.
	open := newGuard(&rebinding{calls: 1}, true)
	client = &http.Client{Transport: &http.Transport{DialContext: open.dial}}
	resp, err := client.Post("http://rebind.test:"+port+"/hook", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !reached {
		t.Error("allowed, the request did not arrive")
	}
}

func TestWhichAddressesAreRefused(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.0.0.1": "private", "172.16.5.4": "private",
		"192.168.0.1": "private", "fd00::1": "private", "169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "::ffff:127.0.0.1": "loopback", "100.64.0.1": "reserved",
		"224.0.0.1": "link-local", "239.1.2.3": "multicast", "255.255.255.255": "reserved",
		"64:ff9b:1::a00:1": "reserved", "2002:7f00:1::1": "reserved", "fec0::1": "reserved",
		// IPv4 inside IPv6: NAT64 is judged by the IPv4 address it leads
		// to; the deprecated forms are refused whatever they embed.
		"64:ff9b::a00:1": "private address (10.0.0.1 behind NAT64)", "64:ff9b::7f00:1": "loopback address (127.0.0.1 behind NAT64)",
		"64:ff9b::5db8:d70e": "", "::7f00:1": "IPv4-compatible", "::127.0.0.1": "IPv4-compatible", "::8.8.8.8": "IPv4-compatible",
		"::ffff:0:7f00:1": "IPv4-translated", "::ffff:0:808:808": "IPv4-translated", "::ffff:10.1.2.3": "private",
		// Ranges no receiver is in.
		"192.0.2.1": "documentation", "198.51.100.7": "documentation", "203.0.113.200": "documentation",
		"2001:db8::1": "documentation", "3fff::1": "documentation", "198.18.0.1": "benchmarking", "198.19.255.1": "benchmarking",
		"0.1.2.3": "this network", "192.0.0.8": "IETF", "192.88.99.1": "6to4", "240.0.0.1": "reserved", "ff02::1": "link-local",
		"ff0e::1": "multicast", "100::1": "discard-only", "2001::1": "Teredo", "2001:2::1": "benchmarking", "5f00::1": "segment routing",
		// Receivers.
		"93.184.215.14": "", "2606:4700::6810:85e5": "", "8.8.8.8": "", "192.0.3.1": "", "203.0.114.1": "", "2001:4860::8888": "",
	} {
		got := whyRefused(netip.MustParseAddr(addr))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}

// dnsAnswer is a resolver that answers every name the same.
type dnsAnswer struct {
	addrs []netip.Addr
	err   error
}

func (d dnsAnswer) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return d.addrs, d.err
}

// TestCheckURLTellsANameWithoutAddressFromAFailedLookup: a host with no
// address is the subscriber's mistake (Invalid, 400); a lookup that timed
// out or failed says nothing of the name (Unavailable, 503: try again).
func TestCheckURLTellsANameWithoutAddressFromAFailedLookup(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		dns  dnsAnswer
		kind tempmail.Kind
		msg  string
	}{
		{"no such host", dnsAnswer{err: &net.DNSError{Err: "no such host", Name: "nowhere.test", IsNotFound: true}},
			tempmail.Invalid, "url host nowhere.test does not resolve to an address"},
		{"no address", dnsAnswer{}, tempmail.Invalid, "url host nowhere.test does not resolve to an address"},
		{"timeout", dnsAnswer{err: &net.DNSError{Err: "i/o timeout", Name: "nowhere.test", IsTimeout: true}},
			tempmail.Unavailable, "url host nowhere.test cannot be looked up now (i/o timeout); try again"},
		{"server failure", dnsAnswer{err: &net.DNSError{Err: "server misbehaving", Name: "nowhere.test", IsTemporary: true}},
			tempmail.Unavailable, "url host nowhere.test cannot be looked up now (server misbehaving); try again"},
		{"public", dnsAnswer{addrs: []netip.Addr{netip.MustParseAddr("93.184.215.14")}}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := newGuard(c.dns, false).CheckURL(context.Background(), "https://nowhere.test/hook")
			if c.msg == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if tempmail.KindOf(err) != c.kind || tempmail.Message(err, "") != c.msg {
				t.Errorf("got %v (kind %v), want %q (kind %v)", err, tempmail.KindOf(err), c.msg, c.kind)
			}
		})
	}
}

// TestTheHostsOwnAddressesAreRefused: a public address of one of the
// host's interfaces leads back to the host, to whatever listens on 0.0.0.0
// there; so it is refused, at subscription and on the address dialled.
func TestTheHostsOwnAddressesAreRefused(t *testing.T) {
	t.Parallel()
	own := netip.MustParseAddr("93.184.215.14")
	g := newGuard(&rebinding{calls: 1}, false)
	g.own = func() ([]netip.Addr, error) { return []netip.Addr{netip.MustParseAddr("10.1.1.1"), own}, nil }
	if _, err := g.CheckURL(context.Background(), "http://93.184.215.14:8080/hook"); err == nil ||
		!strings.Contains(err.Error(), "one of this host's own addresses") {
		t.Errorf("subscribing to the host's own public address: %v", err)
	}
	if err := g.control("tcp4", "93.184.215.14:8080", nil); err == nil || !strings.Contains(err.Error(), "own addresses") {
		t.Errorf("dialling the host's own public address: %v", err)
	}
	if err := g.control("tcp6", "[::ffff:93.184.215.14]:8080", nil); err == nil {
		t.Error("dialling the host's own address, IPv4-mapped: accepted")
	}
	if err := g.control("tcp4", "93.184.215.15:8080", nil); err != nil {
		t.Errorf("a neighbour: %v", err)
	}
	// When the host's addresses cannot be listed, nothing public is dialled
	// on a guess.
	g.own = func() ([]netip.Addr, error) { return nil, errors.New("netlink: no") }
	if err := g.control("tcp4", "93.184.215.15:8080", nil); err == nil || !strings.Contains(err.Error(), "cannot be listed") {
		t.Errorf("addresses unknown: %v", err)
	}
	// --webhook-allow-private lets it be.
	open := newGuard(nil, true)
	open.own = func() ([]netip.Addr, error) { return []netip.Addr{own}, nil }
	if err := open.control("tcp4", "93.184.215.14:8080", nil); err != nil {
		t.Errorf("allowed: %v", err)
	}

	// The default lists the real interfaces: each of their addresses is refused.
	real, err := interfaceAddrs()
	if err != nil || len(real) == 0 {
		t.Fatalf("interface addresses: %v %v", real, err)
	}
	for _, a := range real {
		if why := newGuard(nil, false).whyRefused(a); why == "" {
			t.Errorf("%s, an address of this host, is accepted", a)
		}
	}
}
