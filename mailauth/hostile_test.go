package mailauth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
	"tempmail/mailbox"
)

// A key no verifier should spend arithmetic on is permerror for every
// signature that names it, with the reason, before the library parses it:
// the key of issue 29 (a 380,000-bit modulus of exponent 2^31-1 in a 63
// KB record) and its two halves, a key over 4096 bits and an exponent
// other than 3 and 65537, each named by five signatures with a correct
// body hash and a b= of a 2048-bit key's size (a b= as long as the keys
// would want is refused before their key is asked for:
// TestHostileSignaturesCostNoQuestion). On the code before the bound,
// issue 29's message took 30 s of CPU and each signature was fail. The
// five signatures cost one lookup.
func TestHostileDKIMKeysArePermErrors(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	dns.TXT("evil.test", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("huge._domainkey.evil.test", authtest.RSAKeyRecord(t, 380_000, 1<<31-1))
	dns.TXT("big._domainkey.evil.test", authtest.RSAKeyRecord(t, 8192, 65537))
	dns.TXT("odd._domainkey.evil.test", authtest.RSAKeyRecord(t, 2048, 1<<31-1))
	dns.TXT("three._domainkey.evil.test", authtest.RSAKeyRecord(t, 2048, 3))
	res, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: dns.Addr})
	if err != nil {
		t.Fatal(err)
	}
	v := &mailauth.Verifier{DNS: res, Timeout: 5 * time.Second}
	cases := []struct {
		selector, result, reason string
		asked                    int // a record too large for a datagram is asked again over TCP
	}{
		{"huge", "permerror", "key record longer than 4096 bytes", 2},
		{"big", "permerror", "key larger than 4096 bits", 2},
		{"odd", "permerror", "key exponent neither 3 nor 65537", 1},
		// An exponent of 3 is allowed: the key is used, and the random
		// signature does not verify.
		{"three", "fail", "", 1},
	}
	for _, c := range cases {
		t.Run(c.selector, func(t *testing.T) {
			t.Parallel()
			msg := authtest.ForgedSignatures(t, message("ceo@evil.test", "invoice", strings.Repeat("pay now\r\n", 100)),
				"evil.test", c.selector, mailauth.MaxSignatures, 256)
			got := v.Verify(context.Background(), mailauth.Input{ClientIP: loopback, Helo: "mx.evil.test",
				MailFrom: "ceo@evil.test", Message: []byte(msg)})
			if len(got.DKIM) != mailauth.MaxSignatures {
				t.Fatalf("%d DKIM results, want %d: %+v", len(got.DKIM), mailauth.MaxSignatures, got.DKIM)
			}
			for _, d := range got.DKIM {
				want := mailbox.DKIM{Result: c.result, Domain: "evil.test", Selector: c.selector, Reason: c.reason}
				if d != want {
					t.Errorf("got %+v, want %+v", d, want)
				}
			}
			h := mailauth.Header("mx.tempmail.test", got)
			if c.reason != "" && strings.Count(h, `dkim=permerror reason="`+c.reason+`"`) != mailauth.MaxSignatures {
				t.Errorf("the header does not give each signature its reason:\n%s", h)
			}
			if n := dns.Asked(c.selector + "._domainkey.evil.test"); n != c.asked {
				t.Errorf("the DNS server was asked for the key %d times, want %d", n, c.asked)
			}
		})
	}
}

// An intact signature with l= is policy (RFC 8601), with its reason: the
// same signer without l= passes, so the signature is sound, and only its
// l= is refused. Before, it was fail.
func TestDKIMBodyLengthIsPolicy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	msg := message("Shop <shop@sender.test>", "Your code", "Your code is 424242.")
	for _, k := range []*authtest.Key{w.key, w.rsa} {
		plain := w.verifier.Verify(context.Background(), mailauth.Input{Message: []byte(k.SignLength(t, msg, false))})
		if len(plain.DKIM) != 1 || plain.DKIM[0].Result != "pass" {
			t.Fatalf("the signer without l=: %+v, want pass", plain.DKIM)
		}
		got := w.verifier.Verify(context.Background(), mailauth.Input{Message: []byte(k.SignLength(t, msg, true))})
		want := mailbox.DKIM{Result: "policy", Domain: "sender.test", Selector: k.Selector, Reason: "l= leaves part of the body unsigned"}
		if len(got.DKIM) != 1 || got.DKIM[0] != want {
			t.Errorf("with l=: %+v, want %+v", got.DKIM, want)
		}
		if got.DMARC.Result != "fail" {
			t.Errorf("DMARC %+v: a policy result is not a pass", got.DMARC)
		}
		h := mailauth.Header("mx.tempmail.test", got)
		if !strings.Contains(h, `dkim=policy reason="l= leaves part of the body unsigned" header.d=sender.test`) {
			t.Errorf("header:\n%s", h)
		}
	}
}

// When the checks' time is spent (or the session that asked for them is
// over), the library reads no more of the message: the body is not
// hashed, and the signature is temperror. Before, a key in the cache let
// it hash a body of any size to the end, after its session.
func TestDKIMOutOfTimeIsTemperror(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	signed := w.key.Sign(t, message("shop@sender.test", "big", strings.Repeat(strings.Repeat("x", 76)+"\r\n", 1<<16)))
	// Time enough to hash 5 MB under the race detector on a busy machine
	// (the world's verifier allows 500 ms).
	v := &mailauth.Verifier{DNS: w.verifier.DNS, Timeout: time.Minute}
	if got := v.Verify(context.Background(), mailauth.Input{Message: []byte(signed)}); got.DKIM[0].Result != "pass" {
		t.Fatalf("with time: %+v", got.DKIM) // and the key is in the cache
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the session is over before the checks begin
	got := w.verifier.Verify(ctx, mailauth.Input{Message: []byte(signed)})
	want := mailbox.DKIM{Result: "temperror", Domain: "sender.test", Selector: "sel", Reason: "checks ran out of time"}
	if len(got.DKIM) != 1 || got.DKIM[0] != want {
		t.Errorf("got %+v, want %+v", got.DKIM, want)
	}
}
