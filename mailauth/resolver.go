package mailauth

import (
	"cmp"
	"context"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/net/idna"
	"golang.org/x/sync/singleflight"
)

// Bounds of the resolver. A sender chooses every name SPF, DKIM and DMARC
// look up, so each answer is bounded in time, and what the cache keeps is
// bounded in count and in size.
const (
	DefaultQueryTimeout = time.Second
	DefaultCacheEntries = 4096
	// maxCachedAnswer: a larger answer (wire bytes) is used but not kept,
	// so the cache holds at most DefaultCacheEntries × 4 KiB.
	maxCachedAnswer = 4 << 10
	// TTLs are kept within these: a record that asks for no caching is
	// kept a moment, so that one message's repeated questions are asked
	// once, and none is kept past an hour, so a changed key is seen soon.
	minTTL = 5 * time.Second
	maxTTL = time.Hour
	// negativeTTL is how long "no such name" or "no such record" is kept
	// when the answer carries no SOA to say (RFC 2308 section 5).
	negativeTTL = 5 * time.Minute
	// failureTTL is how long no answer is kept (RFC 2308 section 7 allows
	// up to five minutes): while a sender's name servers, or the resolver,
	// do not answer, each message does not wait for them again.
	failureTTL = 30 * time.Second
)

// ResolverConfig says where a Resolver asks and what it keeps.
type ResolverConfig struct {
	// Server is the recursive resolver to ask, host:port; empty: the
	// system's (the nameservers of /etc/resolv.conf).
	Server string
	// QueryTimeout bounds each question, each server tried; 0: one second.
	QueryTimeout time.Duration
	// CacheEntries bounds the answers kept; 0: 4096; negative: none.
	CacheEntries int
}

// Resolver answers the DNS questions of SPF, DKIM and DMARC with a short
// timeout and a cache of answers, negative ones included, kept for their
// TTL. Its errors are *net.DNSError, as the verification libraries expect:
// IsNotFound for a name or record that does not exist, IsTimeout or
// IsTemporary for no answer. It has the methods of the spf library's
// DNSResolver.
type Resolver struct {
	servers []string
	timeout time.Duration
	cache   *expiringCache[answer] // nil: none
	// inflight joins identical questions asked at once.
	inflight singleflight.Group
}

// NewResolver returns a resolver that asks cfg.Server, or the system's
// nameservers.
func NewResolver(cfg ResolverConfig) (*Resolver, error) {
	r := &Resolver{timeout: cfg.QueryTimeout}
	if r.timeout <= 0 {
		r.timeout = DefaultQueryTimeout
	}
	switch {
	case cfg.CacheEntries == 0:
		r.cache = newExpiringCache[answer](DefaultCacheEntries)
	case cfg.CacheEntries > 0:
		r.cache = newExpiringCache[answer](cfg.CacheEntries)
	}
	if cfg.Server != "" {
		if _, _, err := net.SplitHostPort(cfg.Server); err != nil {
			return nil, errors.New("the DNS resolver must be host:port, such as 127.0.0.1:53")
		}
		r.servers = []string{cfg.Server}
		return r, nil
	}
	conf, err := dns.ClientConfigFromFile("/etc/resolv.conf")
	if err != nil || len(conf.Servers) == 0 {
		// As the C library does without a resolv.conf: ask the machine.
		r.servers = []string{"127.0.0.1:53"}
		return r, nil
	}
	for _, s := range conf.Servers {
		r.servers = append(r.servers, net.JoinHostPort(s, conf.Port))
	}
	return r, nil
}

// answer is what one question got: the records of the type asked for (an
// empty list when the name has none), nxdomain, or failed: no answer that
// could be used (a timeout, or a server's failure). It holds until
// expires, whether the cache keeps it or not.
type answer struct {
	rrs      []dns.RR
	nxdomain bool
	failed   *net.DNSError
	expires  time.Time
}

// LookupTXT returns name's TXT records, each one's strings joined.
func (r *Resolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	txts, _, err := r.lookupTXTUntil(ctx, name)
	return txts, err
}

// lookupTXTUntil is LookupTXT, and says until when its answer holds (its
// TTL), so that a caller may keep what it concluded from the records as
// long as the cache would keep them, also when they are too large to be
// kept.
func (r *Resolver) lookupTXTUntil(ctx context.Context, name string) ([]string, time.Time, error) {
	a, err := r.query(ctx, name, dns.TypeTXT)
	if err != nil {
		return nil, a.expires, err
	}
	var out []string
	for _, rr := range a.rrs {
		if t, ok := rr.(*dns.TXT); ok {
			out = append(out, strings.Join(t.Txt, ""))
		}
	}
	return out, a.expires, nil
}

// LookupMX returns name's MX records.
func (r *Resolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	a, err := r.query(ctx, name, dns.TypeMX)
	if err != nil {
		return nil, err
	}
	var out []*net.MX
	for _, rr := range a.rrs {
		if mx, ok := rr.(*dns.MX); ok {
			out = append(out, &net.MX{Host: mx.Mx, Pref: mx.Preference})
		}
	}
	return out, nil
}

// LookupIPAddr returns name's IPv4 and IPv6 addresses.
func (r *Resolver) LookupIPAddr(ctx context.Context, name string) ([]net.IPAddr, error) {
	var out []net.IPAddr
	var firstErr error
	for _, t := range []uint16{dns.TypeA, dns.TypeAAAA} {
		a, err := r.query(ctx, name, t)
		if err != nil {
			firstErr = cmpErr(firstErr, err)
			continue
		}
		for _, rr := range a.rrs {
			switch rr := rr.(type) {
			case *dns.A:
				out = append(out, net.IPAddr{IP: rr.A})
			case *dns.AAAA:
				out = append(out, net.IPAddr{IP: rr.AAAA})
			}
		}
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// cmpErr keeps the error that says more: a failure to get an answer over
// "no such name", which the other family of addresses may not share.
func cmpErr(kept, err error) error {
	var d *net.DNSError
	if kept == nil || (errors.As(kept, &d) && d.IsNotFound) {
		return err
	}
	return kept
}

// LookupAddr returns the names of addr (its PTR records).
func (r *Resolver) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	arpa, err := dns.ReverseAddr(addr)
	if err != nil {
		return nil, &net.DNSError{Err: "not an IP address", Name: addr, IsNotFound: true}
	}
	a, err := r.query(ctx, arpa, dns.TypePTR)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, rr := range a.rrs {
		if p, ok := rr.(*dns.PTR); ok {
			out = append(out, p.Ptr)
		}
	}
	return out, nil
}

// query answers one question from the cache or the servers. A name that
// is not a domain name is answered "no such name" without asking: names
// come from senders.
func (r *Resolver) query(ctx context.Context, name string, qtype uint16) (answer, error) {
	hold := holdOf(ctx)
	fqdn, ok := lookupName(name)
	if !ok {
		hold.note(time.Time{})
		return answer{}, &net.DNSError{Err: "not a domain name", Name: truncateName(name), IsNotFound: true}
	}
	key := dns.TypeToString[qtype] + " " + fqdn
	if r.cache != nil {
		if a, ok := r.cache.get(key, time.Now()); ok {
			hold.note(a.expires)
			return a.result(fqdn)
		}
	}
	if r.cache == nil {
		hold.note(time.Time{}) // nothing says how long an answer holds
	}
	if ctx.Err() != nil {
		hold.note(time.Time{})
		return answer{}, &net.DNSError{Err: "no answer in time", Name: fqdn, IsTimeout: true, IsTemporary: true}
	}
	// Questions asked at once (a message's signatures are checked in
	// parallel, a burst of mail comes from one domain) share one query.
	// It runs within the query timeouts, apart from any one asker, and
	// fills the cache; each asker waits for it only until its own end.
	ch := r.inflight.DoChan(key, func() (any, error) {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout*time.Duration(len(r.servers)))
		defer cancel()
		return r.ask(qctx, fqdn, qtype, key), nil
	})
	select {
	case res := <-ch:
		hold.note(res.Val.(answer).expires)
		return res.Val.(answer).result(fqdn)
	case <-ctx.Done():
		hold.note(time.Time{})
		return answer{}, &net.DNSError{Err: "no answer in time", Name: fqdn, IsTimeout: true, IsTemporary: true}
	}
}

// ask puts one question to the servers and keeps the answer, or that
// there was none.
func (r *Resolver) ask(ctx context.Context, fqdn string, qtype uint16, key string) answer {
	m := new(dns.Msg)
	m.SetQuestion(fqdn, qtype)
	m.SetEdns0(1232, false) // the DNS flag day 2020 size: no IP fragments
	resp, err := r.exchange(ctx, m)
	var a answer
	switch {
	case err != nil:
		var ne net.Error
		timeout := errors.As(err, &ne) && ne.Timeout() || ctx.Err() != nil
		a.failed = &net.DNSError{Err: "no answer: " + err.Error(), Name: fqdn, IsTimeout: timeout, IsTemporary: true}
	case resp.Rcode != dns.RcodeSuccess && resp.Rcode != dns.RcodeNameError:
		a.failed = &net.DNSError{Err: "server answered " + dns.RcodeToString[resp.Rcode], Name: fqdn, IsTemporary: true}
	default:
		a.nxdomain = resp.Rcode == dns.RcodeNameError
		for _, rr := range resp.Answer {
			if rr.Header().Rrtype == qtype {
				a.rrs = append(a.rrs, rr)
			}
		}
	}
	if a.failed != nil {
		a.expires = time.Now().Add(failureTTL)
	} else {
		a.expires = time.Now().Add(ttlOf(resp, a))
	}
	if r.cache != nil && (a.failed != nil || resp.Len() <= maxCachedAnswer) {
		r.cache.put(key, a, a.expires)
	}
	return a
}

// result is the answer as the lookup functions return it.
func (a answer) result(fqdn string) (answer, error) {
	switch {
	case a.failed != nil:
		return a, a.failed
	case a.nxdomain:
		return a, &net.DNSError{Err: "no such host", Name: fqdn, IsNotFound: true}
	}
	return a, nil
}

// exchange asks each server in turn until one answers, over UDP and then,
// for an answer too large for a datagram, over TCP. When none answers
// well, it returns the last server's answer or error.
func (r *Resolver) exchange(ctx context.Context, m *dns.Msg) (resp *dns.Msg, err error) {
	for _, server := range r.servers {
		if ctx.Err() != nil {
			break
		}
		qctx, cancel := context.WithTimeout(ctx, r.timeout)
		resp, _, err = (&dns.Client{Timeout: r.timeout}).ExchangeContext(qctx, m, server)
		if err == nil && resp.Truncated {
			resp, _, err = (&dns.Client{Net: "tcp", Timeout: r.timeout}).ExchangeContext(qctx, m, server)
		}
		cancel()
		if err == nil && resp.Rcode != dns.RcodeServerFailure && resp.Rcode != dns.RcodeRefused {
			return resp, nil
		}
	}
	if resp == nil && err == nil {
		err = cmp.Or(ctx.Err(), errors.New("no DNS server to ask"))
	}
	return resp, err
}

// ttlOf is how long an answer may be kept: its records' smallest TTL, or
// for a negative answer the SOA's (RFC 2308), within [minTTL, maxTTL].
func ttlOf(resp *dns.Msg, a answer) time.Duration {
	ttl := negativeTTL
	if len(a.rrs) > 0 {
		ttl = maxTTL
		for _, rr := range a.rrs {
			ttl = min(ttl, time.Duration(rr.Header().Ttl)*time.Second)
		}
	} else {
		for _, rr := range resp.Ns {
			if soa, ok := rr.(*dns.SOA); ok {
				ttl = time.Duration(min(soa.Hdr.Ttl, soa.Minttl)) * time.Second
			}
		}
	}
	return min(max(ttl, minTTL), maxTTL)
}

// lookupName turns a name from a message or a record into a fully
// qualified ASCII name, or says it is none: too long, an empty label, or
// bytes no domain has. Internationalised names are asked as A-labels.
func lookupName(name string) (string, bool) {
	name = strings.TrimSuffix(name, ".")
	if name == "" || len(name) > 1024 {
		return "", false
	}
	if !isASCII(name) {
		a, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return "", false
		}
		name = a
	}
	if len(name) > 253 {
		return "", false
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return "", false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", false
			}
		}
	}
	return strings.ToLower(name) + ".", true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func truncateName(s string) string {
	if len(s) > 255 {
		return s[:255]
	}
	return s
}
