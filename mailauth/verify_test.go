package mailauth_test

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
	"tempmail/mailbox"
)

// world is a small Internet for the checks: a DNS server with the records
// of a few domains, and their DKIM keys.
type world struct {
	dns      *authtest.DNS
	key      *authtest.Key // sender.test's, selector sel
	rsa      *authtest.Key // sender.test's, selector big
	verifier *mailauth.Verifier
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{dns: authtest.StartDNS(t)}
	// sender.test sends from 127.0.0.1 and signs; its policy is reject,
	// its subdomains' none.
	w.dns.TXT("sender.test", "v=spf1 ip4:127.0.0.1 -all")
	w.dns.TXT("mx.sender.test", "v=spf1 a -all")
	w.dns.A("mx.sender.test", "127.0.0.1")
	w.dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject; sp=none")
	w.key = authtest.NewKey(t, "sender.test", "sel")
	w.key.Publish(w.dns)
	w.rsa = authtest.NewRSAKey(t, "sender.test", "big")
	w.rsa.Publish(w.dns)
	// spoofed.test sends only from 192.0.2.1: the test client is not it.
	w.dns.TXT("spoofed.test", "v=spf1 ip4:192.0.2.1 -all")
	w.dns.TXT("_dmarc.spoofed.test", "v=DMARC1; p=quarantine")
	// plain.test has SPF and no DMARC record; broken.test a bad one.
	w.dns.TXT("plain.test", "v=spf1 ip4:127.0.0.1 ~all")
	w.dns.TXT("broken.test", "v=spf1 ip4:127.0.0.1 -all")
	w.dns.TXT("_dmarc.broken.test", "v=DMARC1; p=sometimes")
	// slow.test's server never answers.
	for _, n := range []string{"slow.test", "_dmarc.slow.test", "sel._domainkey.slow.test"} {
		w.dns.Hang(n)
	}
	res, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: w.dns.Addr, QueryTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w.verifier = &mailauth.Verifier{DNS: res, Timeout: 500 * time.Millisecond}
	return w
}

func message(from, subject, body string) string {
	return fmt.Sprintf("From: %s\r\nTo: box@tempmail.test\r\nSubject: %s\r\nDate: Sat, 21 Nov 2026 19:00:00 +0000\r\n"+
		"Message-ID: <%d@test>\r\n\r\n%s\r\n", from, subject, time.Now().UnixNano(), body)
}

var (
	loopback = net.ParseIP("127.0.0.1")
	spfPass  = mailbox.SPF{Result: "pass", Domain: "sender.test"}
	noDKIM   = []mailbox.DKIM{}
)

func TestVerify(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	signed := w.key.Sign(t, message("Shop <shop@sender.test>", "Your code", "Your code is 424242."))
	slowSigned := authtest.NewKey(t, "slow.test", "sel").Sign(t, message("a@slow.test", "slow", "body"))
	cases := []struct {
		name  string
		in    mailauth.Input
		spf   mailbox.SPF
		dkim  []mailbox.DKIM
		dmarc mailbox.DMARC
	}{
		{name: "signed by the sender's domain from its address",
			in:    mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", MailFrom: "bounce@sender.test", Message: []byte(signed)},
			spf:   spfPass,
			dkim:  []mailbox.DKIM{{Result: "pass", Domain: "sender.test", Selector: "sel"}},
			dmarc: mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"}},
		{name: "tampered body: DKIM fails, SPF carries DMARC",
			in: mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", MailFrom: "bounce@sender.test",
				Message: []byte(strings.Replace(signed, "424242", "999999", 1))},
			spf:   spfPass,
			dkim:  []mailbox.DKIM{{Result: "fail", Domain: "sender.test", Selector: "sel"}},
			dmarc: mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"}},
		{name: "unsigned",
			in:    mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", MailFrom: "bounce@sender.test", Message: []byte(message("shop@sender.test", "s", "b"))},
			spf:   spfPass,
			dkim:  noDKIM,
			dmarc: mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"}},
		{name: "spoofed From of a domain whose SPF excludes the client",
			in:    mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", MailFrom: "ceo@spoofed.test", Message: []byte(message("CEO <ceo@spoofed.test>", "wire", "pay"))},
			spf:   mailbox.SPF{Result: "fail", Domain: "spoofed.test"},
			dkim:  noDKIM,
			dmarc: mailbox.DMARC{Result: "fail", Domain: "spoofed.test", Policy: "quarantine"}},
		{name: "spoofed From, the envelope the client's own",
			in:    mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", MailFrom: "bounce@sender.test", Message: []byte(message("ceo@spoofed.test", "wire", "pay"))},
			spf:   spfPass,
			dkim:  noDKIM,
			dmarc: mailbox.DMARC{Result: "fail", Domain: "spoofed.test", Policy: "quarantine"}},
		{name: "null sender: SPF of the HELO name",
			in:    mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", Message: []byte(message("mailer-daemon@sender.test", "bounce", "b"))},
			spf:   mailbox.SPF{Result: "pass", Domain: "mx.sender.test"},
			dkim:  noDKIM,
			dmarc: mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"}},
		{name: "null sender with an address literal for HELO",
			in:    mailauth.Input{ClientIP: loopback, Helo: "[127.0.0.1]", Message: []byte(message("x@plain.test", "s", "b"))},
			spf:   mailbox.SPF{Result: "none"},
			dkim:  noDKIM,
			dmarc: mailbox.DMARC{Result: "none", Domain: "plain.test"}},
		{name: "no SMTP client (the inbound webhook): DKIM alone",
			in:    mailauth.Input{Message: []byte(signed)},
			spf:   mailbox.SPF{Result: "none"},
			dkim:  []mailbox.DKIM{{Result: "pass", Domain: "sender.test", Selector: "sel"}},
			dmarc: mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"}},
		{name: "RSA key published in several strings, subdomain From aligned relaxed, its sp policy",
			in:    mailauth.Input{Message: []byte(w.rsa.Sign(t, message("news@news.sender.test", "s", "b")))},
			spf:   mailbox.SPF{Result: "none"},
			dkim:  []mailbox.DKIM{{Result: "pass", Domain: "sender.test", Selector: "big"}},
			dmarc: mailbox.DMARC{Result: "pass", Domain: "news.sender.test", Policy: "none"}},
		{name: "no DMARC record",
			in:    mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", MailFrom: "a@plain.test", Message: []byte(message("a@plain.test", "s", "b"))},
			spf:   mailbox.SPF{Result: "pass", Domain: "plain.test"},
			dkim:  noDKIM,
			dmarc: mailbox.DMARC{Result: "none", Domain: "plain.test"}},
		{name: "a DMARC record that cannot be read",
			in:    mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test", MailFrom: "a@broken.test", Message: []byte(message("a@broken.test", "s", "b"))},
			spf:   mailbox.SPF{Result: "pass", Domain: "broken.test"},
			dkim:  noDKIM,
			dmarc: mailbox.DMARC{Result: "permerror", Domain: "broken.test"}},
		{name: "a domain that does not exist",
			in:    mailauth.Input{ClientIP: loopback, Helo: "x", MailFrom: "a@nowhere.test", Message: []byte(message("a@nowhere.test", "s", "b"))},
			spf:   mailbox.SPF{Result: "none", Domain: "nowhere.test"},
			dkim:  noDKIM,
			dmarc: mailbox.DMARC{Result: "none", Domain: "nowhere.test"}},
		{name: "DNS that does not answer is temperror",
			in:    mailauth.Input{ClientIP: loopback, Helo: "x", MailFrom: "a@slow.test", Message: []byte(slowSigned)},
			spf:   mailbox.SPF{Result: "temperror", Domain: "slow.test"},
			dkim:  []mailbox.DKIM{{Result: "temperror", Domain: "slow.test", Selector: "sel"}},
			dmarc: mailbox.DMARC{Result: "temperror", Domain: "slow.test"}},
		{name: "malformed signature and From",
			in: mailauth.Input{ClientIP: loopback, Helo: "x", MailFrom: "not an address",
				Message: []byte("DKIM-Signature: v=1; d=sender.test; s=sel; garbage\r\nFrom: nobody\r\n\r\nbody\r\n")},
			spf: mailbox.SPF{Result: "none"},
			dkim: []mailbox.DKIM{{Result: "permerror", Domain: "sender.test", Selector: "sel",
				Reason: "b= longer or shorter than any accepted key's signature"}},
			dmarc: mailbox.DMARC{Result: "none"}},
		{name: "hostile names are not looked up nor shown",
			in: mailauth.Input{ClientIP: loopback, Helo: "x", MailFrom: "a@evil\r\n.test",
				Message: []byte("DKIM-Signature: v=1; a=rsa-sha256; d=ev\"il; s=a..b; h=from; bh=x; b=y\r\nFrom: <a@bad_name!>\r\n\r\nbody\r\n")},
			spf:   mailbox.SPF{Result: "none"},
			dkim:  []mailbox.DKIM{{Result: "permerror", Reason: "d= or s= not a domain name"}},
			dmarc: mailbox.DMARC{Result: "none"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := w.verifier.Verify(context.Background(), c.in)
			if got.SPF.Result != c.spf.Result || got.SPF.Domain != c.spf.Domain {
				t.Errorf("spf %+v, want %+v", got.SPF, c.spf)
			}
			if !reflect.DeepEqual(got.DKIM, c.dkim) {
				t.Errorf("dkim %+v, want %+v", got.DKIM, c.dkim)
			}
			if got.DMARC != c.dmarc {
				t.Errorf("dmarc %+v, want %+v", got.DMARC, c.dmarc)
			}
		})
	}
}

// A message whose DNS never answers is decided within the Timeout, not
// when the server gives up.
func TestVerifyIsBoundedInTime(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	res, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: w.dns.Addr, QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	v := &mailauth.Verifier{DNS: res, Timeout: 300 * time.Millisecond}
	start := time.Now()
	got := v.Verify(context.Background(), mailauth.Input{ClientIP: loopback, Helo: "x", MailFrom: "a@slow.test",
		Message: []byte(message("a@slow.test", "s", "b"))})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s with a timeout of 300ms", took)
	}
	if got.SPF.Result != "temperror" || got.DMARC.Result != "temperror" {
		t.Errorf("got %+v", got)
	}
}

// Only the first MaxSignatures signatures are checked and reported.
func TestVerifyChecksAtMostMaxSignatures(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	msg := message("shop@sender.test", "many", "signed again and again")
	for range mailauth.MaxSignatures + 3 {
		msg = w.key.Sign(t, msg)
	}
	got := w.verifier.Verify(context.Background(), mailauth.Input{Message: []byte(msg)})
	if len(got.DKIM) != mailauth.MaxSignatures {
		t.Fatalf("%d DKIM results, want %d", len(got.DKIM), mailauth.MaxSignatures)
	}
	for _, d := range got.DKIM {
		if d.Result != "pass" {
			t.Errorf("%+v", d)
		}
	}
	if n := w.dns.Asked(w.key.Name()); n != 1 {
		t.Errorf("the key was asked for %d times; the cache should have answered all but the first", n)
	}
}
