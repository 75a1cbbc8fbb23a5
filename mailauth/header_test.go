package mailauth_test

import (
	"context"
	"strings"
	"testing"

	"github.com/emersion/go-msgauth/authres"

	"tempmail/mailauth"
	"tempmail/mailbox"
)

// The header parses back, with the authserv-id and every result it was
// given, each on a line of its own.
func TestHeaderParsesBack(t *testing.T) {
	t.Parallel()
	res := &mailbox.Auth{
		SPF: mailbox.SPF{Result: "pass", Domain: "sender.test"},
		DKIM: []mailbox.DKIM{{Result: "pass", Domain: "sender.test", Selector: "sel"},
			{Result: "fail", Domain: "other.test", Selector: "s2"}},
		DMARC: mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"},
	}
	h := mailauth.Header("mx.tempmail.test", res)
	want := "Authentication-Results: mx.tempmail.test;\r\n\tspf=pass smtp.mailfrom=sender.test;\r\n" +
		"\tdkim=pass header.d=sender.test header.s=sel;\r\n\tdkim=fail header.d=other.test header.s=s2;\r\n" +
		"\tdmarc=pass header.from=sender.test\r\n"
	if h != want {
		t.Errorf("got\n%s\nwant\n%s", h, want)
	}
	name, value, _ := strings.Cut(strings.TrimSuffix(h, "\r\n"), ":")
	id, results, err := authres.Parse(strings.NewReplacer("\r\n", "").Replace(value))
	if name != "Authentication-Results" || err != nil || id != "mx.tempmail.test" || len(results) != 4 {
		t.Fatalf("parsed %q: id %q, %d results, %v", h, id, len(results), err)
	}
	if spf, ok := results[0].(*authres.SPFResult); !ok || spf.Value != "pass" || spf.From != "sender.test" {
		t.Errorf("spf %+v", results[0])
	}
	if dmarc, ok := results[3].(*authres.DMARCResult); !ok || dmarc.Value != "pass" || dmarc.From != "sender.test" {
		t.Errorf("dmarc %+v", results[3])
	}
}

// A null sender's SPF is said of the HELO name, and checks with nothing
// to name say none.
func TestHeaderOfHeloAndNone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	res := w.verifier.Verify(context.Background(), mailauth.Input{ClientIP: loopback, Helo: "mx.sender.test",
		Message: []byte("Subject: no From\r\n\r\nbody\r\n")})
	want := "Authentication-Results: mx.tempmail.test;\r\n\tspf=pass smtp.helo=mx.sender.test;\r\n\tdmarc=none\r\n"
	if h := mailauth.Header("mx.tempmail.test", res); h != want {
		t.Errorf("got %q, want %q", h, want)
	}
}

// Whatever a result holds, the header is one field within its bound:
// nothing but domain names goes into it.
func TestHeaderIsBoundedAndUnbreakable(t *testing.T) {
	t.Parallel()
	long := strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("b", 61) // 253 bytes
	res := &mailbox.Auth{SPF: mailbox.SPF{Result: "temperror", Domain: long},
		DMARC: mailbox.DMARC{Result: "bogus\r\nX: y", Domain: long, Policy: "quarantine"}}
	res.DKIM = append(res.DKIM, mailbox.DKIM{Result: "fail", Domain: "evil.test\r\nX-Injected: yes", Selector: "a;b=c"})
	for range mailauth.MaxSignatures + 5 {
		res.DKIM = append(res.DKIM, mailbox.DKIM{Result: "permerror", Domain: long, Selector: long})
	}
	h := mailauth.Header(long, res)
	if len(h) > mailauth.MaxHeaderBytes {
		t.Errorf("%d bytes, more than %d", len(h), mailauth.MaxHeaderBytes)
	}
	if n := strings.Count(h, "dkim="); n < mailauth.MaxSignatures {
		t.Errorf("%d DKIM results in the header, want at least %d", n, mailauth.MaxSignatures)
	}
	for i, line := range strings.Split(strings.TrimSuffix(h, "\r\n"), "\r\n") {
		if i > 0 && !strings.HasPrefix(line, "\t") || strings.ContainsAny(line, "\r\n") || len(line) > 998 {
			t.Errorf("line %d breaks the field: %q", i, line)
		}
	}
	if !strings.Contains(h, "\tdmarc=none header.from=") || !strings.Contains(h, "\tdkim=fail;") || strings.Contains(h, "evil") || strings.Contains(h, "a;b") {
		t.Errorf("a value that is not a domain name is in the header:\n%s", h)
	}
}

func TestRemoveOwnResults(t *testing.T) {
	t.Parallel()
	const ours = "mx.tempmail.test"
	cases := []struct{ name, in, want string }{
		{"ours removed, another's kept",
			"Authentication-Results: mx.tempmail.test; spf=pass smtp.mailfrom=evil.test\r\nAuthentication-Results: mx.example.org; dkim=pass\r\nSubject: s\r\n\r\nbody\r\n",
			"Authentication-Results: mx.example.org; dkim=pass\r\nSubject: s\r\n\r\nbody\r\n"},
		{"folded, in another case, with a version",
			"Subject: s\r\nauthentication-results:\r\n  MX.TempMail.Test 1;\r\n  dkim=pass header.d=bank.test\r\nFrom: a@b.test\r\n\r\nbody\r\n",
			"Subject: s\r\nFrom: a@b.test\r\n\r\nbody\r\n"},
		{"behind a comment, and quoted",
			"Authentication-Results: (trust me) mx.tempmail.test; dmarc=pass\r\nAuthentication-Results: \"mx.tempmail.test\"; dmarc=pass\r\nX: y\r\n\r\nb\r\n",
			"X: y\r\n\r\nb\r\n"},
		{"with a final dot, or dots that only look like one (issue 29)",
			"Authentication-Results: mx.tempmail.test.; dkim=pass\r\n" +
				"Authentication-Results: mx\u2024tempmail\u2024test; dkim=pass\r\n" +
				"Authentication-Results: mx\uff0etempmail\u3002test; dkim=pass\r\n" +
				"Authentication-Results: \uff4d\uff58.tempmail.test\uff61; dkim=pass\r\n" +
				"Authentication-Results: mx\u00b7tempmail\u2219test..; dkim=pass\r\nX: y\r\n\r\nb\r\n",
			"X: y\r\n\r\nb\r\n"},
		{"a name with dots in other places is another's",
			"Authentication-Results: mx.tempmail\u2024test\u2024evil.test; spf=pass\r\nAuthentication-Results: .mx.tempmail.test; spf=pass\r\n\r\nb\r\n",
			"Authentication-Results: mx.tempmail\u2024test\u2024evil.test; spf=pass\r\nAuthentication-Results: .mx.tempmail.test; spf=pass\r\n\r\nb\r\n"},
		{"a longer name that begins with ours is another's",
			"Authentication-Results: mx.tempmail.test.evil.test; spf=pass\r\n\r\nb\r\n",
			"Authentication-Results: mx.tempmail.test.evil.test; spf=pass\r\n\r\nb\r\n"},
		{"the body is not the header",
			"Subject: s\r\n\r\nAuthentication-Results: mx.tempmail.test; spf=pass\r\n",
			"Subject: s\r\n\r\nAuthentication-Results: mx.tempmail.test; spf=pass\r\n"},
		{"bare line ends, and the last field of a message without a body",
			"A: 1\nAuthentication-Results: mx.tempmail.test; x=y\nB: 2\nAuthentication-Results: mx.tempmail.test; x=y",
			"A: 1\nB: 2\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			msg := []byte(c.in)
			got := mailauth.RemoveOwnResults(msg, ours)
			if string(got) != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if len(got) > 0 && &got[0] != &msg[0] {
				t.Error("the message was copied; it must be changed in place")
			}
		})
	}
}
