package ingest_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/command"
	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
	"tempmail/mailbox"
)

// authWorld is a service whose deliverer checks SPF, DKIM and DMARC
// against a DNS server in the process, which serves the records of the
// sending domains; the test's SMTP client connects from 127.0.0.1.
type authWorld struct {
	svc *backend.Backend
	dns *authtest.DNS
	key *authtest.Key // sender.test's
}

// newAuthWorld starts an authWorld whose checks take at most timeout.
func newAuthWorld(t *testing.T, timeout time.Duration) *authWorld {
	t.Helper()
	w := &authWorld{dns: authtest.StartDNS(t)}
	w.dns.TXT("sender.test", "v=spf1 ip4:127.0.0.1 -all")
	w.dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject")
	w.key = authtest.NewKey(t, "sender.test", "sel")
	w.key.Publish(w.dns)
	w.dns.TXT("spoofed.test", "v=spf1 ip4:192.0.2.1 -all") // not the test client
	w.dns.TXT("_dmarc.spoofed.test", "v=DMARC1; p=quarantine")
	for _, n := range []string{"slow.test", "_dmarc.slow.test"} {
		w.dns.Hang(n)
	}
	// Each DNS question may wait far longer than the whole check may:
	// the check's own bound is what keeps the 250 from waiting.
	res, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: w.dns.Addr, QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// The checks have a resolver of their own, which no flag gives.
	w.svc = backendtest.StartWith(t, testConfig(t), backend.Options{Mail: func(m *command.Mail) {
		m.Auth = &mailauth.Verifier{DNS: res, Timeout: timeout}
	}})
	return w
}

// fromSender is a message from a sender's address to one of ours.
func fromSender(from, to, subject string) string {
	return fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: Sat, 21 Nov 2026 19:00:00 +0000\r\nMessage-ID: <%s@test>\r\n\r\n"+
		"Your code is 424242.\r\n", from, to, subject, uuid.NewString())
}

// sendAs has a real SMTP conversation with svc and returns how long the
// 250 after DATA took.
func sendAs(t *testing.T, svc *backend.Backend, helo, mailFrom, to, data string) time.Duration {
	t.Helper()
	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO "+helo)
	c.cmd(250, "MAIL FROM:<"+mailFrom+">")
	c.cmd(250, "RCPT TO:<"+to+">")
	c.cmd(354, "DATA")
	start := time.Now()
	c.cmd(250, data+".")
	took := time.Since(start)
	c.cmd(221, "QUIT")
	return took
}

// The four cases of the issue, over SMTP: the results are stored with the
// message, and its raw source has our Authentication-Results right under
// our Received, then the message as sent.
func TestAuthenticationOnReceipt(t *testing.T) {
	t.Parallel()
	w := newAuthWorld(t, 5*time.Second)
	signed := w.key.Sign(t, fromSender("Shop <shop@sender.test>", "x@tempmail.test", "signed"))
	pass := mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"}
	spfPass := mailbox.SPF{Result: "pass", Domain: "sender.test"}
	for _, c := range []struct {
		name, mailFrom, data, header string
		want                         mailbox.Auth
	}{
		{"signed", "bounce@sender.test", signed,
			"spf=pass smtp.mailfrom=sender.test;\r\n\tdkim=pass header.d=sender.test header.s=sel;\r\n\tdmarc=pass header.from=sender.test",
			mailbox.Auth{SPF: spfPass, DKIM: []mailbox.DKIM{{Result: "pass", Domain: "sender.test", Selector: "sel"}}, DMARC: pass}},
		{"tampered body", "bounce@sender.test", strings.Replace(signed, "424242", "999999", 1),
			"spf=pass smtp.mailfrom=sender.test;\r\n\tdkim=fail header.d=sender.test header.s=sel;\r\n\tdmarc=pass header.from=sender.test",
			mailbox.Auth{SPF: spfPass, DKIM: []mailbox.DKIM{{Result: "fail", Domain: "sender.test", Selector: "sel"}}, DMARC: pass}},
		{"unsigned", "bounce@sender.test", fromSender("shop@sender.test", "x@tempmail.test", "unsigned"),
			"spf=pass smtp.mailfrom=sender.test;\r\n\tdmarc=pass header.from=sender.test",
			mailbox.Auth{SPF: spfPass, DKIM: []mailbox.DKIM{}, DMARC: pass}},
		{"spoofed From", "ceo@spoofed.test", fromSender("CEO <ceo@spoofed.test>", "x@tempmail.test", "spoofed"),
			"spf=fail smtp.mailfrom=spoofed.test;\r\n\tdmarc=fail header.from=spoofed.test",
			mailbox.Auth{SPF: mailbox.SPF{Result: "fail", Domain: "spoofed.test"}, DKIM: []mailbox.DKIM{},
				DMARC: mailbox.DMARC{Result: "fail", Domain: "spoofed.test", Policy: "quarantine"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			addr := strings.ToLower(strings.ReplaceAll(c.name, " ", "-")) + "@tempmail.test"
			in := inbox(t, w.svc, addr)
			sendAs(t, w.svc, "mx.sender.test", c.mailFrom, addr, c.data)
			m := messages(t, w.svc, in.ID, 1)[0]
			if m.Auth == nil || !reflect.DeepEqual(*m.Auth, c.want) {
				t.Errorf("stored %+v, want %+v", m.Auth, c.want)
			}
			b := string(raw(t, w.svc, m))
			received, rest, _ := strings.Cut(b, "\r\nAuthentication-Results: ")
			want := hostname + ";\r\n\t" + c.header + "\r\n" + c.data
			if !strings.HasPrefix(received, "Received: from mx.sender.test (127.0.0.1)") || strings.Contains(received, "\r\n\r\n") || rest != want {
				t.Errorf("raw:\n%s\nwant the Received field, then Authentication-Results: %s", b, want)
			}
		})
	}
}

// DNS that does not answer costs the sender at most the check's bound:
// the 250 comes, and the results say temperror.
func TestAuthenticationDNSTimeoutIsTemperrorNotAHung250(t *testing.T) {
	t.Parallel()
	w := newAuthWorld(t, 500*time.Millisecond)
	in := inbox(t, w.svc, "slow@tempmail.test")
	took := sendAs(t, w.svc, "mx.slow.test", "a@slow.test", in.Address, fromSender("a@slow.test", in.Address, "slow"))
	if took > 10*time.Second {
		t.Errorf("the 250 took %s; the check's bound is 500ms and a DNS question's a minute", took)
	}
	m := messages(t, w.svc, in.ID, 1)[0]
	if m.Auth == nil || m.Auth.SPF.Result != "temperror" || m.Auth.DMARC.Result != "temperror" {
		t.Errorf("stored %+v", m.Auth)
	}
}

// An Authentication-Results field that claims our host name is the
// sender's forgery and goes (RFC 8601 section 5), also when the name has
// a final dot or a dot that only looks like one (U+2024); another
// server's stays.
// So it does with the checks off, which store no results and add no
// field.
func TestAuthenticationResultsClaimingUsAreRemoved(t *testing.T) {
	t.Parallel()
	relay := "Authentication-Results: mx.relay.test; spf=pass smtp.mailfrom=sender.test\r\n"
	message := fromSender("shop@sender.test", "forged@tempmail.test", "forged")
	sent := "Authentication-Results: mx.tempmail.test; spf=pass smtp.mailfrom=bank.test; dmarc=pass header.from=bank.test\r\n" +
		relay + "Authentication-Results: (trust me)\r\n MX.TEMPMAIL.TEST;\r\n dkim=pass header.d=bank.test\r\n" +
		"Authentication-Results: mx.tempmail.test.; dkim=pass header.d=bank.test\r\n" +
		"Authentication-Results: mx\u2024tempmail\u2024test; dkim=pass header.d=bank.test\r\n" + message
	for _, checks := range []bool{true, false} {
		t.Run(fmt.Sprintf("checks %v", checks), func(t *testing.T) {
			t.Parallel()
			var svc *backend.Backend
			ours := 0
			if checks {
				svc, ours = newAuthWorld(t, 5*time.Second).svc, 1
			} else {
				svc = backendtest.Start(t, testConfig(t))
			}
			in := inbox(t, svc, "forged@tempmail.test")
			sendAs(t, svc, "mx.sender.test", "bounce@sender.test", in.Address, sent)
			m := messages(t, svc, in.ID, 1)[0]
			b := string(raw(t, svc, m))
			if !strings.HasSuffix(b, "\r\n"+relay+message) || strings.Count(b, "Authentication-Results: "+hostname+";") != ours ||
				strings.Count(b, "Authentication-Results:") != ours+1 {
				t.Errorf("raw:\n%s\nwant our Received, %d field of ours, the relay's field and the message", b, ours)
			}
			if checks != (m.Auth != nil) {
				t.Errorf("stored results %+v with checks %v", m.Auth, checks)
			}
		})
	}
}

// Issue 29's message over SMTP: five signatures with a correct body hash
// and a random b= of a 2048-bit key's size, whose selector publishes a
// 380,000-bit modulus with e = 2^31-1. Its 250 comes with each signature
// permerror, with the reason in the stored results and in our
// Authentication-Results field; no arithmetic is spent on the key
// (BenchmarkVerifyHostileDKIM measures its cost; before the bound, it was
// 24 s of CPU). The b= as long as the key's is refused before the
// key is asked for (mailauth's TestHostileSignaturesCostNoQuestion).
func TestHostileDKIMKeyOverSMTP(t *testing.T) {
	t.Parallel()
	w := newAuthWorld(t, 5*time.Second)
	w.dns.TXT("evil.test", "v=spf1 ip4:127.0.0.1 -all")
	w.dns.TXT("huge._domainkey.evil.test", authtest.RSAKeyRecord(t, 380_000, 1<<31-1))
	in := inbox(t, w.svc, "victim@tempmail.test")
	body := strings.Repeat(strings.Repeat("x", 76)+"\r\n", 331_000/78)
	data := authtest.ForgedSignatures(t, fmt.Sprintf("From: ceo@evil.test\r\nTo: %s\r\nSubject: invoice\r\n\r\n%s", in.Address, body),
		"evil.test", "huge", 5, 256)
	sendAs(t, w.svc, "mx.evil.test", "ceo@evil.test", in.Address, data)
	m := messages(t, w.svc, in.ID, 1)[0]
	if m.Auth == nil || len(m.Auth.DKIM) != 5 {
		t.Fatalf("stored %+v, want five DKIM results", m.Auth)
	}
	want := mailbox.DKIM{Result: "permerror", Domain: "evil.test", Selector: "huge", Reason: "key record longer than 4096 bytes"}
	for _, d := range m.Auth.DKIM {
		if d != want {
			t.Errorf("stored %+v, want %+v", d, want)
		}
	}
	if b := string(raw(t, w.svc, m)); strings.Count(b, `dkim=permerror reason="key record longer than 4096 bytes" header.d=evil.test header.s=huge`) != 5 {
		t.Errorf("raw:\n%.2000s", b)
	}
}
