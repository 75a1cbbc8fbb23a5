package mailauth_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"tempmail/mail"
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
	check := func(b *testing.B, res *mail.Auth, dkim int) {
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

// BenchmarkVerifyHostileKey is the cost of issue 29's message: five
// signatures with a correct body hash and a random b=, whose selector
// publishes a 380,000-bit modulus with e = 2^31-1 in a 63 KB record (not
// cached: over 4 KiB), checked each time from DNS over TCP. cpu-ms/op is
// the process's CPU (user and system), the DNS server in the process
// included; the code before the bounds spent 24 s of CPU on it.
func BenchmarkVerifyHostileKey(b *testing.B) {
	dns := authtest.StartDNS(b)
	dns.TXT("evil.test", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("huge._domainkey.evil.test", authtest.RSAKeyRecord(b, 380_000, 1<<31-1))
	r, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: dns.Addr})
	if err != nil {
		b.Fatal(err)
	}
	v := &mailauth.Verifier{DNS: r}
	body := strings.Repeat(strings.Repeat("x", 76)+"\r\n", 331_000/78)
	msg := []byte(authtest.ForgedSignatures(b, message("ceo@evil.test", "invoice", body), "evil.test", "huge", 5, 47_500))
	in := mailauth.Input{ClientIP: loopback, Helo: "mx.evil.test", MailFrom: "ceo@evil.test", Message: msg}
	if res := v.Verify(context.Background(), in); res.DKIM[0].Result != "permerror" {
		b.Fatalf("%+v", res.DKIM)
	}
	b.SetBytes(int64(len(msg)))
	start := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		v.Verify(context.Background(), in)
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU the process has spent so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
