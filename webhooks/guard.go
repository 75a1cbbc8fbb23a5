package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"tempmail"
)

// Resolver looks up a host's addresses; *net.Resolver is one. Tests use
// their own to play DNS tricks.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// maxURLBytes bounds a subscription's URL.
const maxURLBytes = 2048

// refusedRanges lead into the service's own network, or nowhere a
// receiver could be, in all but name.
var refusedRanges = [...]struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\""},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT, private in all but name"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relays"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved, and the broadcast address"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible, an IPv4 address inside IPv6"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated, an IPv4 address inside IPv6"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments: Teredo, benchmarking, ORCHID"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4, an IPv4 address inside IPv6"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing"},
	{netip.MustParsePrefix("fec0::/10"), "site-local: private, deprecated but still routed here and there"},
}

// nat64 is the well-known NAT64 prefix: an IPv6-only host reaches IPv4
// receivers through it, each at 64:ff9b::<its IPv4 address>, which is
// judged as that IPv4 address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// whyRefused says why ip is not a webhook target, or "" when it may be:
// loopback, private, link-local and unspecified addresses (docs/webhooks.md), and
// the ranges that lead into the same places. An IPv4 address inside IPv6
// (mapped, or behind NAT64) is judged as the IPv4 address it leads to;
// the deprecated forms that embed one are refused whatever it is.
func whyRefused(ip netip.Addr) string {
	ip = ip.Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		v4 := netip.AddrFrom4([4]byte(b[12:]))
		if why := whyRefused(v4); why != "" {
			return why + " (" + v4.String() + " behind NAT64)"
		}
		return ""
	}
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address"
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, r := range refusedRanges {
		if r.prefix.Contains(ip) {
			return "a reserved address (" + r.prefix.String() + ": " + r.what + ")"
		}
	}
	return ""
}

// interfaceAddrs lists the host's own addresses: a receiver there is the
// host itself, reached past whatever binds to 0.0.0.0 or [::], whether or
// not the address is a public one.
func interfaceAddrs() ([]netip.Addr, error) {
	list, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, 0, len(list))
	for _, a := range list {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out, nil
}

// guard checks targets: at subscription (CheckURL) and on every address
// dialled (dial), so that a host resolving elsewhere at delivery time (DNS
// rebinding) is refused too.
type guard struct {
	resolver     Resolver
	allowPrivate bool
	dialer       net.Dialer
	// own lists the host's addresses, asked afresh on every check: they
	// change as interfaces come and go. Tests give their own.
	own func() ([]netip.Addr, error)
}

func newGuard(r Resolver, allowPrivate bool) *guard {
	if r == nil {
		r = net.DefaultResolver
	}
	g := &guard{resolver: r, allowPrivate: allowPrivate, own: interfaceAddrs}
	g.dialer = net.Dialer{Timeout: 5 * time.Second, Control: g.control}
	return g
}

// refusedError is a connection the guard would not make.
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }

// control runs on the socket of every connection about to be made, with
// the address really dialled.
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	if g.allowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &refusedError{address + " is not an address"}
	}
	if why := g.whyRefused(ap.Addr()); why != "" {
		return &refusedError{"refused to connect to " + ap.Addr().String() + ": it is " + why + " (--webhook-allow-private allows it)"}
	}
	return nil
}

// whyRefused is the package's whyRefused, and refuses the host's own
// addresses too. When they cannot be listed, it refuses: a delivery is
// retried, a connection into the host is not taken back.
func (g *guard) whyRefused(ip netip.Addr) string {
	if why := whyRefused(ip); why != "" {
		return why
	}
	own, err := g.own()
	if err != nil {
		return "perhaps one of this host's own addresses, which cannot be listed now (" + err.Error() + ")"
	}
	for _, a := range own {
		if a == ip.Unmap() {
			return "one of this host's own addresses"
		}
	}
	return ""
}

// dial resolves host with the guard's resolver and dials its addresses in
// turn; control refuses the forbidden ones.
func (g *guard) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := g.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	var first error
	for _, a := range addrs {
		c, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

func (g *guard) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{ip}, nil
	}
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err == nil && len(addrs) == 0 {
		err = fmt.Errorf("no address for %s", host)
	}
	return addrs, err
}

// CheckURL validates a subscription's URL: http or https, a host, no
// credentials, bounded; and, unless private targets are allowed, a host
// that resolves only to public addresses. Its errors are of kind Invalid
// and say what to fix.
func (g *guard) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	invalid := func(format string, args ...any) error {
		return tempmail.Errorf(tempmail.Invalid, "url "+format, args...)
	}
	if raw == "" {
		return nil, invalid("is required")
	}
	if len(raw) > maxURLBytes {
		return nil, invalid("must be at most %d bytes", maxURLBytes)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, invalid("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, invalid("must start with http:// or https://")
	case u.Hostname() == "":
		return nil, invalid("must name a host")
	case u.User != nil:
		return nil, invalid("must not carry credentials: authenticate deliveries by their signature")
	case u.Port() != "" && !validPort(u.Port()):
		return nil, invalid("has an invalid port")
	}
	if g.allowPrivate {
		return u, nil
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := g.lookup(lctx, u.Hostname())
	if err != nil {
		// A name that has no address is the subscriber's to fix; a lookup
		// that failed (a timeout, a server failure) says nothing of the
		// name, and is worth another try.
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && !dnsErr.IsNotFound && (dnsErr.IsTimeout || dnsErr.IsTemporary) {
			return nil, tempmail.Errorf(tempmail.Unavailable, "url host %s cannot be looked up now (%s); try again", u.Hostname(), dnsErr.Err)
		}
		return nil, invalid("host %s does not resolve to an address", u.Hostname())
	}
	for _, a := range addrs {
		if why := g.whyRefused(a); why != "" {
			return nil, invalid("host %s is %s; webhooks may not target private, loopback or link-local addresses", u.Hostname(), why)
		}
	}
	return u, nil
}

func validPort(p string) bool {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return false
		}
	}
	return n > 0
}
