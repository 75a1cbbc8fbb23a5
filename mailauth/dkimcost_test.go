package mailauth_test

import (
	"cmp"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
	"tempmail/mailbox"
)

// A signature that cannot pass with any key accepted, or that would cost
// more to check than any real one, is concluded from its field alone: its
// key is not asked for, and the body is not hashed for it. Each case puts
// five such signatures on a message, naming a real key published under
// the case's own selector. The same results come when the session is
// over before the checks begin: no DNS, no body read. The last case, a
// b= of exactly a 4096-bit key's size, is checked: its key is asked for,
// and out of time it is temperror.
func TestHostileSignaturesCostNoQuestion(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	real := authtest.NewRSAKey(t, "evil.test", "real")
	r, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: dns.Addr})
	if err != nil {
		t.Fatal(err)
	}
	v := &mailauth.Verifier{DNS: r, Timeout: 5 * time.Second}
	const (
		sigSize   = "b= longer or shorter than any accepted key's signature"
		badName   = "d= or s= not a domain name"
		label64   = "a123456789b123456789c123456789d123456789e123456789f123456789abcd"
		domain200 = label64 + "." + label64 + "." + label64 + ".test" // 203 octets
	)
	cases := []struct {
		name    string
		forgery authtest.Forgery
		want    mailbox.DKIM // Domain and Selector as shown
	}{
		{"b= one byte longer than a 4096-bit key's signature", authtest.Forgery{SigBytes: 513},
			mailbox.DKIM{Result: "permerror", Reason: sigSize}},
		{"issue 29's b=, as long as a 380,000-bit key's", authtest.Forgery{SigBytes: 47_500},
			mailbox.DKIM{Result: "permerror", Reason: sigSize}},
		{"b= shorter than an Ed25519 signature", authtest.Forgery{SigBytes: 63},
			mailbox.DKIM{Result: "permerror", Reason: sigSize}},
		{"d= with a label of 64 octets", authtest.Forgery{Domain: label64 + ".test", SigBytes: 256},
			mailbox.DKIM{Result: "permerror", Reason: badName}},
		{"d= longer than 253 octets", authtest.Forgery{Domain: strings.Repeat("a.", 127) + "test", SigBytes: 256},
			mailbox.DKIM{Result: "permerror", Reason: badName}},
		{"s= with a label of 64 octets", authtest.Forgery{Selector: label64, SigBytes: 256},
			mailbox.DKIM{Result: "permerror", Reason: badName}},
		{"s= with a character no name has", authtest.Forgery{Selector: "a!b", SigBytes: 256},
			mailbox.DKIM{Result: "permerror", Reason: badName}},
		{"the key's name longer than 253 octets", authtest.Forgery{Domain: domain200, Selector: label64[:40], SigBytes: 256},
			mailbox.DKIM{Result: "permerror", Reason: badName}},
		{"bh= of 10,000 characters", authtest.Forgery{SigBytes: 256, BodyHash: strings.Repeat("A", 10_000)},
			mailbox.DKIM{Result: "permerror", Reason: "bh= not a SHA-256 hash"}},
		{"h= of 65 names", authtest.Forgery{SigBytes: 256, Headers: "from" + strings.Repeat(":x", 64)},
			mailbox.DKIM{Result: "permerror", Reason: "h= names more than 64 fields"}},
		{"a field longer than 16 KiB", authtest.Forgery{SigBytes: 256, Extra: "z=" + strings.Repeat("x", 17_000) + "; "},
			mailbox.DKIM{Result: "permerror", Reason: "signature field longer than 16 KiB"}},
		{"l= of any size", authtest.Forgery{SigBytes: 256, Extra: "l=99999999999999999999; "},
			mailbox.DKIM{Result: "policy", Reason: "l= leaves part of the body unsigned"}},
	}
	msg := message("ceo@evil.test", "invoice", strings.Repeat("pay now\r\n", 1000))
	verify := func(ctx context.Context, f authtest.Forgery) []mailbox.DKIM {
		return v.Verify(ctx, mailauth.Input{Message: []byte(f.On(t, msg, mailauth.MaxSignatures))}).DKIM
	}
	over, cancel := context.WithCancel(context.Background())
	cancel()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := c.forgery
			f.Domain, f.Selector = cmp.Or(f.Domain, "evil.test"), cmp.Or(f.Selector, "s"+strconv.Itoa(i))
			name := f.Selector + "._domainkey." + f.Domain
			dns.TXT(name, real.Record())
			want := c.want
			want.Domain, want.Selector = shown(f.Domain), shown(f.Selector)
			for _, ctx := range []context.Context{context.Background(), over} {
				got := verify(ctx, f)
				if len(got) != mailauth.MaxSignatures {
					t.Fatalf("%d results: %+v", len(got), got)
				}
				for _, d := range got {
					if d != want {
						t.Errorf("got %+v, want %+v", d, want)
					}
				}
			}
			if n := dns.Asked(name); n != 0 {
				t.Errorf("the key was asked for %d times", n)
			}
		})
	}
	t.Run("control: b= of a 4096-bit key's signature", func(t *testing.T) {
		t.Parallel()
		f := authtest.Forgery{Domain: "evil.test", Selector: "control", SigBytes: 512}
		dns.TXT("control._domainkey.evil.test", real.Record())
		if got := verify(context.Background(), f); got[0].Result != "fail" || got[0].Reason != "" {
			t.Errorf("got %+v, want fail", got[0])
		}
		if got := verify(over, f); got[0].Result != "temperror" {
			t.Errorf("out of time, got %+v, want temperror", got[0])
		}
		if n := dns.Asked("control._domainkey.evil.test"); n != 1 {
			t.Errorf("the key was asked for %d times, want once", n)
		}
	})
}

// shown is a domain or selector as a result shows it: empty when it is
// not a domain name.
func shown(name string) string {
	for _, label := range strings.Split(name, ".") {
		if len(label) > 63 || strings.ContainsAny(label, "!") {
			return ""
		}
	}
	if len(name) > 253 {
		return ""
	}
	return name
}

// Five signatures that name one key cost one lookup of it, and one
// vetting: with a resolver that keeps nothing, only the check's own
// asking once spares the others. Before, each signature asked.
func TestSignaturesOfOneKeyCostOneLookup(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	authtest.NewRSAKey(t, "evil.test", "real").Publish(dns)
	dns.TXT("odd._domainkey.evil.test", authtest.RSAKeyRecord(t, 2048, 1<<31-1))
	r := newResolver(t, dns, -1)
	v := &mailauth.Verifier{DNS: r, Timeout: 5 * time.Second}
	msg := message("ceo@evil.test", "invoice", strings.Repeat("pay now\r\n", 1000))
	for _, c := range []struct{ selector, result string }{{"real", "fail"}, {"odd", "permerror"}} {
		f := authtest.Forgery{Domain: "evil.test", Selector: c.selector, SigBytes: 256}
		got := v.Verify(context.Background(), mailauth.Input{Message: []byte(f.On(t, msg, mailauth.MaxSignatures))}).DKIM
		for _, d := range got {
			if d.Result != c.result {
				t.Errorf("%s: got %+v, want %s", c.selector, d, c.result)
			}
		}
		if n := dns.Asked(c.selector + "._domainkey.evil.test"); n != 1 {
			t.Errorf("%s: the key was asked for %d times, want once", c.selector, n)
		}
	}
}

// A key record refused is remembered as refused for its TTL: the next
// messages that name it cost no question, and so no vetting, also when
// the resolver keeps nothing (here, for the small record) or cannot keep
// the answer (the 63 KB record, asked over UDP and then TCP). A key that
// is used is not remembered so: without a cache, each message asks.
func TestRefusedKeyIsRemembered(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	authtest.NewRSAKey(t, "evil.test", "real").Publish(dns)
	dns.TXT("odd._domainkey.evil.test", authtest.RSAKeyRecord(t, 2048, 1<<31-1))
	dns.TXT("huge._domainkey.evil.test", authtest.RSAKeyRecord(t, 380_000, 1<<31-1))
	msg := message("ceo@evil.test", "invoice", strings.Repeat("pay now\r\n", 1000))
	for _, c := range []struct {
		selector string
		cache    int // the resolver's CacheEntries
		want     mailbox.DKIM
		asked    int
	}{
		{"odd", -1, mailbox.DKIM{Result: "permerror", Reason: "key exponent neither 3 nor 65537"}, 1},
		{"huge", 0, mailbox.DKIM{Result: "permerror", Reason: "key record longer than 4096 bytes"}, 2},
		{"real", -1, mailbox.DKIM{Result: "fail"}, 3},
	} {
		v := &mailauth.Verifier{DNS: newResolver(t, dns, c.cache), Timeout: 5 * time.Second}
		f := authtest.Forgery{Domain: "evil.test", Selector: c.selector, SigBytes: 256}
		c.want.Domain, c.want.Selector = "evil.test", c.selector
		for range 3 {
			got := v.Verify(context.Background(), mailauth.Input{Message: []byte(f.On(t, msg, 1))}).DKIM
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		}
		if n := dns.Asked(c.selector + "._domainkey.evil.test"); n != c.asked {
			t.Errorf("%s: the DNS server was asked for the key %d times in three messages, want %d", c.selector, n, c.asked)
		}
	}
}
