package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"tempmail/config"
	"tempmail/mailauth/authtest"
)

// More of the page, driven in headless Chromium (see browser_test.go for
// the helpers): links in a mail's HTML, the addresses this browser made,
// deleting with undo, and what SPF, DKIM and DMARC said.

// visit is one request a site outside the service received.
type visit struct{ path, referer string }

// outsideSite is a web site elsewhere, as the links and images in mail lead
// to, that reports every request it gets.
func outsideSite(t *testing.T) (*httptest.Server, <-chan visit) {
	t.Helper()
	visits := make(chan visit, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" { // the new tab's own, not the mail's
			http.NotFound(w, r)
			return
		}
		select {
		case visits <- visit{r.URL.Path, r.Header.Get("Referer")}:
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>landing</title><p>the site the link leads to")
	}))
	t.Cleanup(srv.Close)
	return srv, visits
}

// A click on a link in a mail's HTML opens it in a new tab that cannot
// reach the page and is told nothing of where it came from; the frame stays
// where it is, and remote content stays blocked.
func TestBrowserLinkInMailOpensInANewTab(t *testing.T) {
	t.Parallel()
	site, visits := outsideSite(t)
	svc, base := startService(t, t.TempDir())
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	p.waitLive(t)
	p.do(t, chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))
	deliverSMTP(t, svc, address, `
From: Example Shop <shop@example.com>
To: `+address+`
Subject: Confirm your address
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<body style="margin:0"><img src="`+site.URL+`/pixel.png" width="1" height="1">
<a id="go" href="`+site.URL+`/verify?t=abc" target="_top" ping="`+site.URL+`/ping" style="display:block;height:120px;background:#cfc">Confirm your address</a>
<a id="inside" href="#go">to the top</a></body>
`)
	p.waitFor(t, "the message in the list", `document.querySelectorAll('.message-item').length === 1`)
	p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
	p.waitFor(t, "the message", `!document.getElementById('message').hidden && document.getElementById('message-status').hidden`)
	if src := eval[string](t, p, `document.getElementById('message-frame').getAttribute('src')`); strings.Contains(src, "remote=1") {
		t.Fatalf("the frame loads %s: remote content is not blocked by default", src)
	}
	// The service of this test checks no mail: no line of checks.
	if !eval[bool](t, p, `document.getElementById('message-auth-row').hidden`) {
		t.Errorf("mail that was not checked shows checks: %q", p.text(t, "#message-auth"))
	}
	anchors := p.frameEval(t, `[...document.links].map((a) => a.id + ' ' + a.target + ' ' + a.rel + ' ' + a.hasAttribute('ping')).join('; ')`)
	if anchors != "go _blank noopener noreferrer false; inside   false" {
		t.Errorf("the mail's links are %q, want the web link sent to a new tab and the link within the mail left alone", anchors)
	}

	p.do(t, chromedp.Evaluate[chromedp.Void](`document.getElementById('message-frame').scrollIntoView()`))
	box := eval[struct{ X, Y float64 }](t, p, `(() => { const r = document.getElementById('message-frame').getBoundingClientRect();
		return {X: r.left, Y: r.top}; })()`)
	// A click sent before the frame takes input is lost: sent again until
	// the site is visited. Nothing but the link may reach it: not the
	// image (remote content is blocked), not the ping.
	var landed visit
	for try := 0; landed.path == ""; try++ {
		if try == 5 {
			t.Fatal("clicks on the link never opened it")
		}
		p.do(t, chromedp.MouseClickXY(box.X+60, box.Y+60))
		deadline := time.After(2 * time.Second)
	wait:
		for {
			select {
			case v := <-visits:
				if v.path != "/verify" {
					t.Errorf("the site was asked for %s", v.path)
					continue
				}
				landed = v
			case <-deadline:
			}
			break wait
		}
	}
	if landed.referer != "" {
		t.Errorf("the site was told the referrer %q", landed.referer)
	}

	// The new tab: at the link, with no way back to the page.
	tab := p.waitForTarget(t, func(url string) bool { return url == site.URL+"/verify?t=abc" })
	if got := p.targetEval(t, tab, `String(window.opener === null) + ' ' + JSON.stringify(document.referrer)`); got != `true ""` {
		t.Errorf("in the new tab, opener is null and referrer: %s", got)
	}
	// The page and its frame stayed where they were.
	if loc := p.frameEval(t, `location.pathname`); !strings.HasSuffix(loc, "/body.html") {
		t.Errorf("the frame navigated to %s", loc)
	}
	if loc := eval[string](t, p, `location.href`); loc != base+"/" || !eval[bool](t, p, `window.sameDocument === true`) {
		t.Errorf("the page is at %s, or was reloaded", loc)
	}
	for len(visits) > 0 {
		t.Errorf("the site was also asked for %s", (<-visits).path)
	}
}

// waitForTarget waits for a tab whose URL matches, and returns its id.
func (p *browserPage) waitForTarget(t *testing.T, match func(url string) bool) target.ID {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	for {
		infos, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatalf("the tabs: %v", err)
		}
		for _, in := range infos {
			if in.Type == "page" && match(in.URL) {
				return in.TargetID
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("no such tab opened")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// targetEval evaluates a JavaScript expression in another tab.
func (p *browserPage) targetEval(t *testing.T, id target.ID, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	tctx, cancelTab := chromedp.NewContext(ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer cancelTab()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("in tab %s, %s: %v", id, expr, err)
	}
	return v
}

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
	cfg := testConfig(t.TempDir())
	cfg.AuthChecks, cfg.DNSResolver = true, dns.Addr
	return cfg, key
}

// deliverAs delivers a message with the envelope sender from, signed by key
// unless key is nil.
func deliverAs(t *testing.T, svc *Service, from, to, message string, key *authtest.Key) {
	t.Helper()
	raw := strings.ReplaceAll(strings.TrimPrefix(message, "\n"), "\n", "\r\n")
	if key != nil {
		raw = key.Sign(t, raw)
	}
	if err := smtp.SendMail(svc.SMTP.Addr(), nil, from, []string{to}, []byte(raw)); err != nil {
		t.Fatalf("send mail to %s: %v", to, err)
	}
}

// The message view says in one line, in words, what SPF, DKIM and DMARC
// said of a message, with colours of their own in dark mode too.
func TestBrowserShowsWhatSPFDKIMAndDMARCSaid(t *testing.T) {
	t.Parallel()
	cfg, key := authDNS(t)
	svc, base := startServiceWith(t, cfg)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	p.waitLive(t)
	head := func(from, subject string) string {
		return "\nFrom: " + from + "\nTo: " + address + "\nSubject: " + subject +
			"\nDate: " + time.Now().Format(time.RFC1123Z) + "\nMessage-ID: <" + subject + "@test>\n\n"
	}
	deliverAs(t, svc, "bounce@sender.test", address, head("shop@sender.test", "genuine")+"Your code is 424242.\n", key)
	deliverAs(t, svc, "bounce@forger.test", address, head("ceo@forger.test", "forged")+"Pay this invoice.\n", nil)
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
