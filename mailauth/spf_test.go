package mailauth_test

import (
	"context"
	"net"
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

// An SPF result is kept for its client, HELO name and sender alone: the
// same sender from an address its record does not list fails, however
// often the listed one passed just before, and the other way round.
func TestSPFResultsAreKeptPerClientAndSender(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	other := net.ParseIP("192.0.2.77")
	for range 3 {
		for _, c := range []struct {
			ip         net.IP
			from, want string
		}{
			{loopback, "a@sender.test", "pass"},
			{other, "a@sender.test", "fail"},
			{loopback, "a@spoofed.test", "fail"},
			{other, "b@sender.test", "fail"},
			{loopback, "b@sender.test", "pass"},
		} {
			got := w.verifier.Verify(context.Background(), mailauth.Input{ClientIP: c.ip, Helo: "mx.example",
				MailFrom: c.from, Message: []byte(message(c.from, "s", "b"))})
			if got.SPF.Result != c.want {
				t.Errorf("%s from %s: spf %q, want %q", c.from, c.ip, got.SPF.Result, c.want)
			}
		}
	}
}
