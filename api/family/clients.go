package family

import (
	"net/http"
	"net/netip"
	"strings"

	"tempmail/fairshare"
)

// Fair shares (docs/errors-and-limits.md "Limits"): what one client may hold (waiters.go) and
// create (creates.go) is counted per client, so that one client cannot
// take what the service has for all.
//
// A client is the address the connection comes from; behind reverse
// proxies named by --trusted-proxies, the address the outermost of them
// saw: the right-most X-Forwarded-For entry that is not itself a trusted
// proxy. Entries to its left are the client's own words and are never
// believed, and without trusted proxies the header is ignored: anyone can
// send it. Shares are counted by fairshare.Key: an IPv6 client is its /64.

// maxForwardedHops bounds the X-Forwarded-For entries looked at, from the
// right: a chain of trusted proxies is a few hops long, and a header can be
// a megabyte.
const maxForwardedHops = 16

// ClientOf is the client r comes from, as the key its shares are counted
// under.
func (s *Kit) ClientOf(r *http.Request) netip.Prefix {
	return fairshare.Key(clientAddr(r, s.Config.TrustedProxies))
}

// clientAddr is the address of r's client.
func clientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseHop(r.RemoteAddr)
	if !peer.IsValid() || !inAny(trusted, peer) {
		return peer
	}
	vals := r.Header.Values("X-Forwarded-For")
	hops := 0
	for i := len(vals) - 1; i >= 0; i-- {
		v := vals[i]
		for v != "" {
			if hops++; hops > maxForwardedHops {
				return peer
			}
			entry := v
			if j := strings.LastIndexByte(v, ','); j >= 0 {
				entry, v = v[j+1:], v[:j]
			} else {
				v = ""
			}
			a := parseHop(strings.TrimSpace(entry))
			if !a.IsValid() {
				// Not what a proxy of ours writes: the nearest proxy we
				// trust is all that can be said of the client.
				return peer
			}
			if !inAny(trusted, a) {
				return a
			}
			peer = a
		}
	}
	return peer // every hop is a trusted proxy
}

// parseHop reads an address as X-Forwarded-For and RemoteAddr write it:
// alone, or with a port ("192.0.2.1:443", "[2001:db8::1]:443").
func parseHop(s string) netip.Addr {
	if len(s) == 0 || len(s) > 64 {
		return netip.Addr{}
	}
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return a.Unmap().WithZone("")
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	return netip.Addr{}
}

func inAny(list []netip.Prefix, a netip.Addr) bool {
	for _, p := range list {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
