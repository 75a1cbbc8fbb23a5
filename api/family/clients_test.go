package family

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
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
}
