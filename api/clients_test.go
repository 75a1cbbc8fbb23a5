package api

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"tempmail/config"
)

func TestClientIsThePeerOrTheRightmostUntrustedForwardedAddress(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	long := strings.Repeat("10.0.0.1, ", 40) + "10.0.0.2"
	for _, c := range []struct {
		name, remote string
		forwarded    []string
		trusted      []netip.Prefix
		want         string
	}{
		{"no proxies: the peer", "192.0.2.1:5000", nil, nil, "192.0.2.1"},
		{"no proxies: the header is ignored", "192.0.2.1:5000", []string{"198.51.100.7"}, nil, "192.0.2.1"},
		{"an untrusted peer's header is ignored", "192.0.2.1:5000", []string{"198.51.100.7"}, proxies, "192.0.2.1"},
		{"a trusted proxy: the address it saw", "127.0.0.1:5000", []string{"198.51.100.7"}, proxies, "198.51.100.7"},
		{"what the client wrote itself is not believed", "127.0.0.1:5000", []string{"1.1.1.1, 8.8.8.8, 198.51.100.7"}, proxies, "198.51.100.7"},
		{"a chain of trusted proxies", "127.0.0.1:5000", []string{"8.8.8.8, 198.51.100.7, 10.1.2.3", "10.9.9.9"}, proxies, "198.51.100.7"},
		{"IPv6 through a trusted IPv6 proxy", "[fd00::5]:443", []string{"2001:db8:1:2:3:4:5:6"}, proxies, "2001:db8:1:2:3:4:5:6"},
		{"entries with ports", "127.0.0.1:5000", []string{"[2001:db8::9]:1234, 10.0.0.3:80"}, proxies, "2001:db8::9"},
		{"IPv4-mapped", "[::ffff:127.0.0.1]:5000", []string{"::ffff:198.51.100.7"}, proxies, "198.51.100.7"},
		{"no header behind a proxy: the proxy", "127.0.0.1:5000", nil, proxies, "127.0.0.1"},
		{"all trusted: the left-most", "127.0.0.1:5000", []string{"10.0.0.9, 10.0.0.8"}, proxies, "10.0.0.9"},
		{"garbage where the proxy wrote: the nearest proxy", "127.0.0.1:5000", []string{"198.51.100.7, not-an-address"}, proxies, "127.0.0.1"},
		{"an empty entry: the nearest proxy", "127.0.0.1:5000", []string{"198.51.100.7,,10.0.0.4"}, proxies, "10.0.0.4"},
		{"more hops than looked at: the last trusted one seen", "127.0.0.1:5000", []string{"198.51.100.7, " + long}, proxies, "10.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.remote
			for _, v := range c.forwarded {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientAddr(r, c.trusted); got.String() != c.want {
				t.Errorf("client %s, want %s", got, c.want)
			}
		})
	}
	// An IPv6 client is its /64.
	a, b := netip.MustParseAddr("2001:db8:1:2::1"), netip.MustParseAddr("2001:db8:1:2:ffff::9")
	if clientKey(a) != clientKey(b) || clientKey(a) == clientKey(netip.MustParseAddr("2001:db8:1:3::1")) {
		t.Errorf("IPv6 keys: %s %s", clientKey(a), clientKey(b))
	}
	if k := clientKey(netip.MustParseAddr("192.0.2.1")); k.String() != "192.0.2.1/32" {
		t.Errorf("IPv4 key %s", k)
	}
}

// TestCreationBucketsRefillAndStayBounded: a client may make N at once,
// then one every period/N; a bucket left alone refills; and however many
// clients come, the buckets kept stay bounded.
func TestCreationBucketsRefillAndStayBounded(t *testing.T) {
	t.Parallel()
	c := newCreates(config.Rate{N: 5, Per: time.Minute})
	t0 := time.Unix(1_800_000_000, 0)
	one, two := clientKey(netip.MustParseAddr("192.0.2.1")), clientKey(netip.MustParseAddr("192.0.2.2"))
	for i := range 5 {
		if ok, _ := c.take(one, t0); !ok {
			t.Fatalf("creation %d refused", i+1)
		}
	}
	if ok, wait := c.take(one, t0); ok || wait != 12*time.Second {
		t.Errorf("the 6th: %v, wait %v; want refused for 12 s", ok, wait)
	}
	if ok, _ := c.take(two, t0); !ok {
		t.Error("another client refused")
	}
	if ok, wait := c.take(one, t0.Add(6*time.Second)); ok || wait != 6*time.Second {
		t.Errorf("6 s on: %v, wait %v", ok, wait)
	}
	if ok, _ := c.take(one, t0.Add(12*time.Second)); !ok {
		t.Error("12 s on, refilled by one: refused")
	}
	if ok, _ := c.take(one, t0.Add(13*time.Second)); ok {
		t.Error("13 s on: a second one allowed")
	}
	// Two periods later, with the generations turned, it is full again.
	later := t0.Add(3 * time.Minute)
	for i := range 5 {
		if ok, _ := c.take(one, later); !ok {
			t.Fatalf("after a while, creation %d refused", i+1)
		}
	}
	// The other client, idle since, is forgotten within two periods.
	if c.take(one, later.Add(time.Minute)); len(c.prev) != 0 || len(c.cur) != 1 {
		t.Errorf("idle clients kept: %d + %d buckets", len(c.cur), len(c.prev))
	}

	// A flood of distinct clients keeps at most two generations.
	var b [4]byte
	for i := range 3 * maxTrackedClients {
		b[1], b[2], b[3] = byte(i>>16), byte(i>>8), byte(i)
		c.take(clientKey(netip.AddrFrom4(b)), later)
	}
	if n := len(c.cur) + len(c.prev); n > 2*maxTrackedClients {
		t.Errorf("%d buckets after %d clients, want at most %d", n, 3*maxTrackedClients, 2*maxTrackedClients)
	}
}
