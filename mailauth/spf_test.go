package mailauth_test

import (
	"context"
	"testing"

	"tempmail/mailauth"
)

// RFC 7208 section 4.6: a record with a syntax error anywhere is
// permerror, also after the term that matches, and also in an include.
// The library stops at the match, and said pass.
func TestSPFSyntaxErrorAfterTheMatchIsPermerror(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.dns.TXT("bogus.test", "v=spf1 ip4:127.0.0.1 bogus:x -all")
	w.dns.TXT("badinclude.test", "v=spf1 include:inner.test -all")
	w.dns.TXT("inner.test", "v=spf1 ip4:127.0.0.1 ip4:300.1.1.1 -all")
	w.dns.TXT("fine.test", "v=spf1 ip4:127.0.0.1 ip4:192.0.2.0/24 a:mail.fine.test/24 mx//64 include:_spf.sender.test exp=explain.%{d} -all")
	for domain, want := range map[string]string{"bogus.test": "permerror", "badinclude.test": "permerror", "fine.test": "pass"} {
		got := w.verifier.Verify(context.Background(), mailauth.Input{ClientIP: loopback, Helo: "mx." + domain,
			MailFrom: "a@" + domain, Message: []byte(message("a@"+domain, "s", "b"))})
		if got.SPF.Result != want {
			t.Errorf("%s: spf %q, want %q", domain, got.SPF.Result, want)
		}
	}
}
