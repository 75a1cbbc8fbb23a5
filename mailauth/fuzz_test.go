package mailauth_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
)

var words = []string{"pass", "fail", "softfail", "neutral", "none", "temperror", "permerror", "policy"}

// Whatever a sender writes, Verify answers in result words, within its
// bounds, and the header it makes is one well-formed field.
func FuzzVerify(f *testing.F) {
	dns := authtest.StartDNS(f)
	dns.TXT("sender.test", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject")
	key := authtest.NewKey(f, "sender.test", "sel")
	key.Publish(dns)
	res, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: dns.Addr, QueryTimeout: 100 * time.Millisecond})
	if err != nil {
		f.Fatal(err)
	}
	v := &mailauth.Verifier{DNS: res, Timeout: 300 * time.Millisecond}
	signed := key.Sign(f, message("shop@sender.test", "s", "b"))
	for _, seed := range []string{signed, strings.Replace(signed, "\r\n\r\n", "\r\n", 1), strings.ReplaceAll(signed, "\r\n", "\n"),
		"DKIM-Signature: v=1; a=rsa-sha256; d=ev\"il; s=a..b; h=from; bh=x; b=y\r\nFrom: <a@bad_name!>\r\n\r\nbody\r\n",
		"From: =?x-unknown?q?a?= <a@sender.test>\r\nDKIM-Signature: v=1; d=sender.test; s=sel; l=1; h=from\r\n\r\n",
		"", "\r\n", "From: a@\r\n\r\n", "From: \"quoted@x.test\" <a@b.test>, c@d.test\r\n\r\n"} {
		f.Add([]byte(seed), "bounce@sender.test", "mx.sender.test")
	}
	f.Fuzz(func(t *testing.T, msg []byte, mailFrom, helo string) {
		orig := bytes.Clone(msg)
		r := v.Verify(context.Background(), mailauth.Input{ClientIP: loopback, Helo: helo, MailFrom: mailFrom, Message: msg})
		if !bytes.Equal(msg, orig) {
			t.Fatal("Verify changed the message")
		}
		if !slices.Contains(words, r.SPF.Result) || !slices.Contains(words, r.DMARC.Result) || r.DKIM == nil || len(r.DKIM) > mailauth.MaxSignatures {
			t.Fatalf("%+v", r)
		}
		for _, d := range r.DKIM {
			if !slices.Contains(words, d.Result) {
				t.Fatalf("%+v", d)
			}
		}
		h := mailauth.Header("mx.tempmail.test", r)
		if len(h) > mailauth.MaxHeaderBytes || strings.Count(h, "\r\n") != strings.Count(h, "\r\n\t")+1 || strings.ContainsAny(strings.ReplaceAll(h, "\r\n", ""), "\r\n") {
			t.Fatalf("header %q", h)
		}
	})
}

// RemoveOwnResults never leaves a field that claims our id in the header
// block, keeps everything else in order, and works in place.
func FuzzRemoveOwnResults(f *testing.F) {
	for _, c := range []string{
		"Authentication-Results: mx.tempmail.test; spf=pass\r\nSubject: s\r\n\r\nbody\r\n",
		"Authentication-Results: (c (nested) \\) x) mx.tempmail.test; spf=pass\r\n\r\n",
		"authentication-results :\r\n \"mx.tempmail.test\"; x\nA: b\n",
		"\r\n\r\nAuthentication-Results: mx.tempmail.test;\r\n", " leading\r\nAuthentication-Results: mx.tempmail.test",
	} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		orig := bytes.Clone(msg)
		got := mailauth.RemoveOwnResults(msg, "mx.tempmail.test")
		if len(got) > len(orig) || (len(got) > 0 && &got[0] != &msg[0]) {
			t.Fatalf("not done in place: %q", got)
		}
		if bytes.Equal(got, orig) {
			return
		}
		// Something went: run again, nothing more may go.
		again := mailauth.RemoveOwnResults(bytes.Clone(got), "mx.tempmail.test")
		if !bytes.Equal(again, got) {
			t.Fatalf("a second pass removed more: %q -> %q", got, again)
		}
	})
}
