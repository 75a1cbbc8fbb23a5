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

// whyRefused says why ip is not a webhook target, or "" when it may be:
// loopback, private, link-local and unspecified addresses (API.md), and
// the ranges that lead into the same places.
func whyRefused(ip netip.Addr) string {
	refused := [...]string{
		"0.0.0.0/8",      // "this network"
		"100.64.0.0/10",  // carrier-grade NAT: private in all but name
		"192.0.0.0/24",   // IETF protocol assignments
		"198.18.0.0/15",  // benchmarking
		"240.0.0.0/4",    // reserved, and the broadcast address
		"64:ff9b::/96",   // NAT64: an IPv4 address inside IPv6
		"64:ff9b:1::/48", // local-use NAT64, likewise
		"2002::/16",      // 6to4: an IPv4 address inside IPv6
		"2001:db8::/32",  // documentation
		"fec0::/10",      // site-local: private, deprecated but still routed here and there
	}
	ip = ip.Unmap()
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
	for _, p := range refused {
		if netip.MustParsePrefix(p).Contains(ip) {
			return "a reserved address (" + p + ")"
		}
	}
	return ""
}

// guard checks targets: at subscription (CheckURL) and on every address
// dialled (dial), so that a host resolving elsewhere at delivery time (DNS
// rebinding) is refused too.
type guard struct {
	resolver     Resolver
	allowPrivate bool
	dialer       net.Dialer
}

func newGuard(r Resolver, allowPrivate bool) *guard {
	if r == nil {
		r = net.DefaultResolver
	}
	g := &guard{resolver: r, allowPrivate: allowPrivate}
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
	if why := whyRefused(ap.Addr()); why != "" {
		return &refusedError{"refused to connect to " + ap.Addr().String() + ": it is " + why + " (--webhook-allow-private allows it)"}
	}
	return nil
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
		if why := whyRefused(a); why != "" {
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
