package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"tempmail/config"
	"tempmail/mailauth/authtest"
	"tempmail/service/servicetest"
)

// What SPF, DKIM and DMARC said, on the page (browser_test.go has the
// helpers).

// authDNS is a DNS server in the process that vouches for sender.test
// (SPF lists 127.0.0.1, a DKIM key, DMARC p=reject) and says that
// forger.test sends from nowhere (SPF -all, DMARC p=reject), with the
// service configured to check mail against it.
func authDNS(t *testing.T) (config.Config, *authtest.Key) {
	t.Helper()
	dns := authtest.StartDNS(t)
	dns.TXT("sender.test", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject")
	dns.TXT("forger.test", "v=spf1 -all")
	dns.TXT("_dmarc.forger.test", "v=DMARC1; p=reject")
	key := authtest.NewKey(t, "sender.test", "sel")
	key.Publish(dns)
	cfg := servicetest.Config(t)
	cfg.AuthChecks, cfg.DNSResolver = true, dns.Addr
	return cfg, key
}

// signed is message signed by key, its lines ended in CRLF first, as they
// go over SMTP and as the signature covers them.
func signed(t *testing.T, key *authtest.Key, message string) string {
	t.Helper()
	return key.Sign(t, strings.ReplaceAll(message, "\n", "\r\n"))
}

// The message view says in one line, in words, what SPF, DKIM and DMARC
// said of a message, with colours of their own in dark mode too.
func TestBrowserShowsWhatSPFDKIMAndDMARCSaid(t *testing.T) {
	t.Parallel()
	cfg, key := authDNS(t)
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	p.waitLive(t)
	head := func(from, subject string) string {
		return "From: " + from + "\nTo: " + address + "\nSubject: " + subject +
			"\nDate: " + time.Now().Format(time.RFC1123Z) + "\nMessage-ID: <" + subject + "@test>\n\n"
	}
	servicetest.Send(t, svc.SMTPAddr(), "bounce@sender.test", address, signed(t, key, head("shop@sender.test", "genuine")+"Your code is 424242.\n"))
	servicetest.Send(t, svc.SMTPAddr(), "bounce@forger.test", address, head("ceo@forger.test", "forged")+"Pay this invoice.\n")
	p.waitFor(t, "both messages", `document.querySelectorAll('.message-item').length === 2`)

	read := func(subject string) []string {
		t.Helper()
		p.do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`[...document.querySelectorAll('.message-item')]
			.find((li) => li.querySelector('.item-subject').textContent === %s).querySelector('.message-open').click()`, jsString(subject))))
		p.waitFor(t, subject, fmt.Sprintf(`document.getElementById('message-subject').textContent === %s && document.getElementById('message-status').hidden`, jsString(subject)))
		if eval[bool](t, p, `document.getElementById('message-auth-row').hidden`) {
			t.Fatalf("%s: no checks shown", subject)
		}
		return eval[[]string](t, p, `[...document.querySelectorAll('#message-auth li')].map((li) => li.className + ': ' + li.textContent)`)
	}
	same := func(what string, got, want []string) {
		t.Helper()
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: checks shown\n%q\nwant\n%q", what, got, want)
		}
	}
	same("genuine mail", read("genuine"), []string{
		"auth-check pass: ✓SPF pass", "auth-check pass: ✓DKIM pass (sender.test)", "auth-check pass: ✓DMARC pass"})
	same("forged mail", read("forged"), []string{
		"auth-check fail: ✗SPF fail", "auth-check neutral: –DKIM none (not signed)", "auth-check fail: ✗DMARC fail (policy reject)"})

	// Pass and fail have their own colours in both themes, and neither is
	// the colour of plain text.
	colours := func() map[string]string {
		return eval[map[string]string](t, p, `(() => {
			const c = (sel) => getComputedStyle(document.querySelector(sel)).color;
			return {fail: c('#message-auth .fail'), neutral: c('#message-auth .neutral'), text: c('#message-from')};
		})()`)
	}
	light := colours()
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
	}); err != nil {
		t.Fatal(err)
	}
	dark := colours()
	if light["fail"] == light["text"] || dark["fail"] == dark["text"] || light["fail"] == dark["fail"] || dark["neutral"] == dark["fail"] {
		t.Errorf("colours: light %v, dark %v", light, dark)
	}
}
