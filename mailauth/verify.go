package mailauth

import (
	"cmp"
	"context"
	"errors"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"tempmail/mailbox"
	"time"

	"blitiri.com.ar/go/spf"
	"github.com/emersion/go-msgauth/dmarc"
	"golang.org/x/net/publicsuffix"
)

const (
	// DefaultTimeout bounds a whole verification: what DNS has not
	// answered by then is temperror, so the sender's 250 waits at most
	// this long for it.
	DefaultTimeout = 2 * time.Second
	// MaxSignatures is how many DKIM signatures of one message are
	// checked, the first in header order; further ones are not checked
	// nor reported. Each costs a DNS question and a hash of the body.
	MaxSignatures = 5
)

// Verifier checks the SPF, DKIM and DMARC of received messages. It
// remembers the DKIM key records it refused, for their TTL, so it is
// shared by pointer and not copied.
type Verifier struct {
	DNS *Resolver
	// Timeout bounds one Verify; 0: DefaultTimeout.
	Timeout time.Duration

	refusedOnce sync.Once
	refused     *expiringCache[string] // refusedKeys: reasons by key record name
	spfOnce     sync.Once
	spf         *expiringCache[mailbox.SPF] // spfResults: by client, HELO name and sender
}

// maxSPFResults bounds the SPF results a Verifier keeps.
const maxSPFResults = 10000

// spfResults is the Verifier's memory of SPF results, made at its first
// use.
func (v *Verifier) spfResults() *expiringCache[mailbox.SPF] {
	v.spfOnce.Do(func() { v.spf = newExpiringCache[mailbox.SPF](maxSPFResults) })
	return v.spf
}

// Input is what is known of one message.
type Input struct {
	// ClientIP is the SMTP client's address; nil when the message did not
	// come over SMTP (the inbound webhook), and SPF has nothing to check.
	ClientIP net.IP
	Helo     string // the client's EHLO or HELO name
	MailFrom string // the envelope sender; empty for a null sender (<>)
	// Message is the message as the client sent it. Verify reads it and
	// does not keep it.
	Message []byte
}

// Verify checks SPF, every DKIM signature (up to MaxSignatures) and the
// From domain's DMARC policy, the three at once, within the Timeout. It
// never fails: what cannot be concluded is said in the result's words
// (temperror for DNS that did not answer in time, permerror for records
// or signatures that cannot be read). It returns once nothing it started
// still reads in.Message.
func (v *Verifier) Verify(ctx context.Context, in Input) *mailbox.Auth {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(v.Timeout, DefaultTimeout))
	defer cancel()
	res := &mailbox.Auth{}
	from := fromDomain(in.Message)
	var pol policy
	var wg sync.WaitGroup
	// A library that panics on what a sender wrote must not end the
	// process: that check is then permerror (checkDKIM sees to its own).
	wg.Go(func() {
		defer recoverAs(func() { res.SPF = mailbox.SPF{Result: PermError} })
		res.SPF = v.checkSPF(ctx, in)
	})
	wg.Go(func() { res.DKIM = v.checkDKIM(ctx, in.Message) })
	wg.Go(func() {
		defer recoverAs(func() { pol = policy{result: PermError} })
		pol = v.lookupDMARC(ctx, from)
	})
	wg.Wait()
	res.DMARC = pol.evaluate(from, res.SPF, res.DKIM)
	return res
}

// recoverAs runs fallback when the function it is deferred in panics.
func recoverAs(fallback func()) {
	if recover() != nil {
		fallback()
	}
}

// checkSPF checks the client's address against the MAIL FROM domain's
// SPF record, or the HELO name's for a null sender (RFC 7208 section
// 2.4).
func (v *Verifier) checkSPF(ctx context.Context, in Input) mailbox.SPF {
	if in.ClientIP == nil {
		return mailbox.SPF{Result: None}
	}
	helo := strings.TrimSuffix(strings.TrimSpace(in.Helo), ".")
	local, domain := splitAddress(in.MailFrom)
	out := mailbox.SPF{Domain: cleanDomain(domain)}
	if in.MailFrom == "" {
		local, out.Domain, out.HELO = "postmaster", cleanDomain(helo), true
	}
	if out.Domain == "" {
		// A malformed domain, or an address literal for a HELO name:
		// nothing to look up (RFC 7208 section 4.3).
		out.Result = None
		return out
	}
	sender := strings.ReplaceAll(local, "@", "") + "@" + out.Domain
	// The same client, name and sender come to the same result for as
	// long as the answers it was drawn from hold: a burst of mail from one
	// sender (a test suite's) is checked once, not once a message.
	key := in.ClientIP.String() + " " + helo + " " + sender
	if kept, ok := v.spfResults().get(key, time.Now()); ok {
		return kept
	}
	hold := &answersHold{}
	dns := &spfDNS{Resolver: v.DNS}
	r, _ := spf.CheckHostWithSender(in.ClientIP, helo, sender, spf.WithContext(withHold(ctx, hold)), spf.WithResolver(dns))
	if dns.malformed.Load() {
		r = spf.PermError // RFC 7208 section 4.6: spf.go
	}
	switch r {
	case spf.Pass, spf.Fail, spf.SoftFail, spf.Neutral, spf.None, spf.TempError, spf.PermError:
		out.Result = string(r)
	default:
		out.Result = PermError
	}
	if until, ok := hold.holds(); ok && out.Result != TempError {
		v.spfResults().put(key, out, until)
	}
	return out
}

// policy is what DMARC policy discovery found for a From domain: a
// record, or the result to give without one.
type policy struct {
	rec    *dmarc.Record
	sub    bool   // rec is the organisational domain's, for a subdomain
	result string // without a record: none, temperror or permerror
}

// lookupDMARC finds the From domain's DMARC record, or its organisational
// domain's (RFC 7489 section 6.6.3).
func (v *Verifier) lookupDMARC(ctx context.Context, domain string) policy {
	if domain == "" {
		return policy{result: None}
	}
	opts := &dmarc.LookupOptions{LookupTXT: func(name string) ([]string, error) { return v.DNS.LookupTXT(ctx, name) }}
	rec, err := dmarc.LookupWithOptions(domain, opts)
	sub := false
	if org := orgDomain(domain); errors.Is(err, dmarc.ErrNoPolicy) && org != domain {
		rec, err = dmarc.LookupWithOptions(org, opts)
		sub = true
	}
	switch {
	case err == nil:
		return policy{rec: rec, sub: sub}
	case errors.Is(err, dmarc.ErrNoPolicy):
		return policy{result: None}
	case dmarc.IsTempFail(err):
		return policy{result: TempError}
	}
	return policy{result: PermError}
}

// evaluate applies the policy: DMARC passes when SPF or a DKIM signature
// passes for a domain aligned with the From domain (RFC 7489 section 3.1).
// When neither does and a check could not be made, it is temperror: the
// message may yet be the domain's.
func (p policy) evaluate(from string, s mailbox.SPF, sigs []mailbox.DKIM) mailbox.DMARC {
	out := mailbox.DMARC{Domain: from, Result: p.result}
	if p.rec == nil {
		return out
	}
	out.Policy = string(p.rec.Policy)
	if p.sub && p.rec.SubdomainPolicy != "" {
		out.Policy = string(p.rec.SubdomainPolicy)
	}
	pass := s.Result == Pass && aligned(s.Domain, from, p.rec.SPFAlignment)
	temp := s.Result == TempError
	for _, d := range sigs {
		pass = pass || d.Result == Pass && aligned(d.Domain, from, p.rec.DKIMAlignment)
		temp = temp || d.Result == TempError
	}
	switch {
	case pass:
		out.Result = Pass
	case temp:
		out.Result = TempError
	default:
		out.Result = Fail
	}
	return out
}

// aligned says whether an authenticated domain stands for the From domain:
// the same name in strict mode, the same organisational domain in relaxed.
func aligned(authenticated, from string, mode dmarc.AlignmentMode) bool {
	if authenticated == "" || from == "" {
		return false
	}
	if mode == dmarc.AlignmentStrict {
		return authenticated == from
	}
	return orgDomain(authenticated) == orgDomain(from)
}

// orgDomain is a domain's organisational domain: one label below its
// public suffix (RFC 7489 section 3.2).
func orgDomain(d string) string {
	if org, err := publicsuffix.EffectiveTLDPlusOne(d); err == nil {
		return org
	}
	return d
}

// fromDomain is the domain of the From header's (first) address, as DMARC
// checks it, or empty.
func fromDomain(msg []byte) string {
	v := fieldValues(msg, "From", 1)
	if len(v) == 0 {
		return ""
	}
	if list, err := netmail.ParseAddressList(v[0]); err == nil && len(list) > 0 {
		_, d := splitAddress(list[0].Address)
		return cleanDomain(d)
	}
	// Not RFC 5322: the word after the last @, as a reader would see it.
	at := strings.LastIndexByte(v[0], '@')
	if at < 0 {
		return ""
	}
	d := v[0][at+1:]
	if end := strings.IndexAny(d, "> \t,;\"()"); end >= 0 {
		d = d[:end]
	}
	return cleanDomain(d)
}

// splitAddress splits an address at its last @.
func splitAddress(addr string) (local, domain string) {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return addr, ""
	}
	return addr[:at], addr[at+1:]
}

// cleanDomain is d lower-case and in ASCII (an internationalised name as
// its A-labels), or empty when it is not a domain name: every domain a
// result names has passed here.
func cleanDomain(d string) string {
	fqdn, ok := lookupName(strings.TrimSpace(d))
	if !ok {
		return ""
	}
	return strings.TrimSuffix(fqdn, ".")
}
