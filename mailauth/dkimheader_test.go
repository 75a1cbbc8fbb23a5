package mailauth_test

import (
	"context"
	"strings"
	"testing"

	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
	"tempmail/mailbox"
)

// The library is given the fields verification reads: a signature passes
// among 20,000 fields it does not sign, and with a Subject of 100 folded
// lines it signs. Fields it signs beyond the bounds (a Subject folded
// into 10,000 lines, 300 fields of one name) make it permerror without
// the library, which took 0.2 s for the first; the message's other
// checks are unchanged.
func TestSignedFieldsAreBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	forged := authtest.Forgery{Domain: "sender.test", Selector: "big", SigBytes: 256}
	tooLarge := mailbox.DKIM{Result: "permerror", Domain: "sender.test", Selector: "big", Reason: "signed header fields too large to check"}
	cases := []struct {
		name string
		msg  string
		want mailbox.DKIM
	}{
		{"20,000 unsigned fields", strings.Repeat("X-Junk: y\r\n", 20_000) + w.rsa.Sign(t, message("shop@sender.test", "s", "b")),
			mailbox.DKIM{Result: "pass", Domain: "sender.test", Selector: "big"}},
		{"a Subject of 100 lines", w.rsa.Sign(t, message("shop@sender.test", "x"+strings.Repeat("\r\n y", 99), "b")),
			mailbox.DKIM{Result: "pass", Domain: "sender.test", Selector: "big"}},
		{"a Subject of 10,000 lines", forged.On(t, message("shop@sender.test", "x"+strings.Repeat("\r\n y", 9_999), "b"), 1),
			tooLarge},
		{"300 fields of a name signed", withHeaders(forged, "from:x").On(t, strings.Repeat("X: y\r\n", 300)+message("shop@sender.test", "s", "b"), 1),
			tooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := w.verifier.Verify(context.Background(), mailauth.Input{Message: []byte(c.msg)})
			if len(got.DKIM) != 1 || got.DKIM[0] != c.want {
				t.Errorf("got %+v, want %+v", got.DKIM, c.want)
			}
		})
	}
}

func withHeaders(f authtest.Forgery, h string) authtest.Forgery {
	f.Headers = h
	return f
}

// A signature whose h= names DKIM-Signature signs the signatures below it:
// it passes with them, also with one beyond the first MaxSignatures
// (which it signs, and which is not checked); when one of them is
// concluded without the library (here, a b= too long), the library cannot
// be given it, and the signing signature is permerror too.
func TestSignatureThatSignsSignatures(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	msg := message("shop@sender.test", "s", "b")
	pass := func(selector string) mailbox.DKIM {
		return mailbox.DKIM{Result: "pass", Domain: "sender.test", Selector: selector}
	}
	five := msg // signed by turns by two keys, so that no two signatures are alike
	for i := range mailauth.MaxSignatures {
		five = []*authtest.Key{w.key, w.rsa}[i%2].Sign(t, five)
	}
	tooLong := authtest.Forgery{Domain: "sender.test", Selector: "sel", SigBytes: 1000}.On(t, msg, 1)
	cases := []struct {
		name string
		msg  string
		want []mailbox.DKIM
	}{
		{"over one signature", w.rsa.SignFields(t, w.key.Sign(t, msg), "From", "DKIM-Signature"),
			[]mailbox.DKIM{pass("big"), pass("sel")}},
		{"over five, the lowest not checked", w.rsa.SignFields(t, five, "From", "DKIM-Signature"),
			[]mailbox.DKIM{pass("big"), pass("sel"), pass("big"), pass("sel"), pass("big")}},
		{"over one refused", w.rsa.SignFields(t, tooLong, "From", "DKIM-Signature"),
			[]mailbox.DKIM{{Result: "permerror", Domain: "sender.test", Selector: "big", Reason: "signs a DKIM-Signature not checked"},
				{Result: "permerror", Domain: "sender.test", Selector: "sel", Reason: "b= longer or shorter than any accepted key's signature"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := w.verifier.Verify(context.Background(), mailauth.Input{Message: []byte(c.msg)}).DKIM
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("signature %d: got %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}
