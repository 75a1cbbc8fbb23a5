package mailauth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
)

// BenchmarkVerify is the cost of checking one 4 KiB message, signed with
// a 2048-bit RSA key as most mail is, or unsigned, against the DNS server
// in the process: with the cache warm (the same sender again), and cold
// (every question asked: SPF, the key, DMARC).
func BenchmarkVerify(b *testing.B) {
	dns := authtest.StartDNS(b)
	dns.TXT("sender.test", "v=spf1 ip4:192.0.2.0/24 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject")
	key := authtest.NewRSAKey(b, "sender.test", "sel")
	key.Publish(dns)
	body := strings.Repeat(strings.Repeat("x", 76)+"\r\n", 4096/78)
	unsigned := message("shop@sender.test", "Your code", body)
	signed := key.Sign(b, unsigned)
	in := func(msg string) mailauth.Input {
		return mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", MailFrom: "bounce@sender.test", Message: []byte(msg)}
	}
	resolver := func(cache bool) *mailauth.Resolver {
		entries := -1 // none
		if cache {
			entries = 0 // the default
		}
		r, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: dns.Addr, CacheEntries: entries})
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	check := func(b *testing.B, res *mailauth.Result, dkim int) {
		if res.DMARC.Result != "pass" || len(res.DKIM) != dkim || dkim == 1 && res.DKIM[0].Result != "pass" {
			b.Fatalf("%+v", res)
		}
	}
	for _, c := range []struct {
		name string
		msg  string
		dkim int
	}{{"signed", signed, 1}, {"unsigned", unsigned, 0}} {
		b.Run("warm/"+c.name, func(b *testing.B) {
			v := &mailauth.Verifier{DNS: resolver(true), Timeout: 5 * time.Second}
			check(b, v.Verify(context.Background(), in(c.msg)), c.dkim)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				v.Verify(context.Background(), in(c.msg))
			}
		})
		b.Run("cold/"+c.name, func(b *testing.B) {
			v := &mailauth.Verifier{DNS: resolver(false), Timeout: 5 * time.Second}
			check(b, v.Verify(context.Background(), in(c.msg)), c.dkim)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				v.Verify(context.Background(), in(c.msg))
			}
		})
	}
}
