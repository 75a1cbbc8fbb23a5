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
	"github.com/chromedp/chromedp/kb"

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

// serverSees waits until cond holds, as the service sees what the page
// did, failing the test after stepTimeout.
func serverSees(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(stepTimeout)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("waiting for %s: timed out", what)
		}
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

// deliverAs delivers a message to the SMTP server at smtpAddr with the
// envelope sender from, signed by key unless key is nil.
func deliverAs(t *testing.T, smtpAddr, from, to, message string, key *authtest.Key) {
	t.Helper()
	raw := strings.ReplaceAll(strings.TrimPrefix(message, "\n"), "\n", "\r\n")
	if key != nil {
		raw = key.Sign(t, raw)
	}
	if err := smtp.SendMail(smtpAddr, nil, from, []string{to}, []byte(raw)); err != nil {
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
	deliverAs(t, svc.SMTP.Addr(), "bounce@sender.test", address, head("shop@sender.test", "genuine")+"Your code is 424242.\n", key)
	deliverAs(t, svc.SMTP.Addr(), "bounce@forger.test", address, head("ceo@forger.test", "forged")+"Pay this invoice.\n", nil)
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

// storedAddresses are the addresses the page keeps in localStorage.
func (p *browserPage) storedAddresses(t *testing.T) []string {
	t.Helper()
	return eval[[]string](t, p, `(JSON.parse(localStorage.getItem('tempmail.inboxes') || '[]')).map((x) => x.address)`)
}

// switcherShows is what the list of addresses shows: each address, with
// "*" before the one shown now.
func (p *browserPage) switcherShows(t *testing.T) []string {
	t.Helper()
	return eval[[]string](t, p, `[...document.querySelectorAll('#switch-list li')].map((li) =>
		(li.getAttribute('aria-current') === 'true' ? '*' : '') + li.querySelector('.switch-address').textContent)`)
}

// "New address" asks first when the inbox shown has mail; every address
// this browser made stays in a list to switch back to, with the keyboard
// alone, and the list and the event stream follow the switch. Expired and
// deleted addresses leave the list.
func TestBrowserSwitchesBetweenItsAddresses(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	first := p.address(t)
	firstToken := p.storedToken(t)
	p.waitLive(t)
	if !eval[bool](t, p, `document.getElementById('switch-toggle').hidden`) {
		t.Error("with one address, the page offers to switch")
	}
	deliverSMTP(t, svc, first, signUpMail(first, "111111"))
	p.waitFor(t, "the message", `document.querySelectorAll('.message-item').length === 1`)

	// An inbox with mail: "New address" asks first. Escape says no.
	p.do(t, chromedp.Focus(chromedp.ID("new-address")), chromedp.KeyEvent("\r"))
	p.waitFor(t, "the question", `document.getElementById('confirm-leave').open`)
	if got := p.text(t, "#leave-text"); !strings.HasPrefix(got, first+" has 1 message.") || !strings.Contains(got, "Your addresses") {
		t.Errorf("the question says %q", got)
	}
	if got := eval[string](t, p, `document.activeElement.textContent`); got != "Cancel" {
		t.Errorf("the question opens with focus on %q, want Cancel", got)
	}
	p.do(t, chromedp.KeyEvent(kb.Escape))
	p.waitFor(t, "the question gone", `!document.getElementById('confirm-leave').open`)
	if got := p.text(t, "#address"); got != first {
		t.Fatalf("after Escape the page shows %s, want still %s", got, first)
	}
	if got := eval[string](t, p, `document.activeElement.id`); got != "new-address" {
		t.Errorf("after Escape focus is on #%s, want back on #new-address", got)
	}
	// Yes, with the keyboard: Tab to the button and Enter.
	p.do(t, chromedp.KeyEvent("\r"))
	p.waitFor(t, "the question", `document.getElementById('confirm-leave').open`)
	p.do(t, chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent("\r"))
	p.waitFor(t, "a second address", fmt.Sprintf(`document.getElementById('address').textContent.includes('@') && document.getElementById('address').textContent !== %s`, jsString(first)))
	second := p.text(t, "#address")
	p.waitFor(t, "the empty inbox", `document.querySelectorAll('.message-item').length === 0 && !document.getElementById('list-empty').hidden`)
	if got := p.storedAddresses(t); strings.Join(got, " ") != second+" "+first {
		t.Errorf("the page keeps %q, want %s and %s, newest first", got, second, first)
	}

	// Back to the first, with the keyboard alone: its mail, and new mail live.
	p.waitFor(t, "the switch button", `!document.getElementById('switch-toggle').hidden`)
	if got := p.text(t, "#switch-count"); got != "2" {
		t.Errorf("the switch button counts %q, want 2", got)
	}
	p.do(t, chromedp.Focus(chromedp.ID("switch-toggle")), chromedp.KeyEvent("\r"))
	p.waitFor(t, "the addresses", `!document.getElementById('switch-panel').hidden`)
	if got := p.switcherShows(t); strings.Join(got, " ") != "*"+second+" "+first {
		t.Errorf("the list shows %q", got)
	}
	if got := eval[string](t, p, `document.activeElement.querySelector('.switch-address')?.textContent ?? ''`); got != first {
		t.Errorf("the list opens with focus on %q, want the address to switch to, %s", got, first)
	}
	p.do(t, chromedp.KeyEvent("\r"))
	p.waitFor(t, "the first address again", fmt.Sprintf(`document.getElementById('address').textContent === %s`, jsString(first)))
	p.waitFor(t, "its mail", `document.querySelectorAll('.message-item').length === 1`)
	if p.storedToken(t) != firstToken {
		t.Error("the page keeps another inbox as the current one")
	}
	if !eval[bool](t, p, `document.getElementById('switch-panel').hidden && document.activeElement.id === 'switch-toggle'`) {
		t.Error("after switching, the list stays open or focus is lost")
	}
	p.waitLive(t)
	deliverSMTP(t, svc, first, signUpMail(first, "222222"))
	p.waitFor(t, "new mail of the first address", `document.querySelectorAll('.message-item').length === 2`)

	// An inbox without mail is left without a question.
	p.do(t, chromedp.Click(chromedp.ID("switch-toggle")))
	p.do(t, chromedp.Click(chromedp.CSS(`#switch-list .switch-to`)))
	p.waitFor(t, "the second address again", fmt.Sprintf(`document.getElementById('address').textContent === %s`, jsString(second)))
	p.waitLive(t)
	p.do(t, chromedp.Click(chromedp.ID("new-address")))
	p.waitFor(t, "a third address", fmt.Sprintf(`![%s, %s, ''].includes(document.getElementById('address').textContent)`, jsString(first), jsString(second)))
	if len(p.dialogsSeen()) != 0 || eval[bool](t, p, `document.getElementById('confirm-leave').open`) {
		t.Error("leaving an empty inbox asked first")
	}
	third := p.text(t, "#address")

	// An address that expired is not listed; one deleted elsewhere goes
	// when the page finds out.
	p.do(t, chromedp.Evaluate[chromedp.Void](`(() => {
		const list = JSON.parse(localStorage.getItem('tempmail.inboxes'));
		list.push({token: 'EXPIRED', address: 'old@tempmail.test', created_at: '2020-01-01T00:00:00Z', expires_at: '2020-01-02T00:00:00Z'});
		localStorage.setItem('tempmail.inboxes', JSON.stringify(list));
	})()`), chromedp.Reload())
	p.address(t)
	p.do(t, chromedp.Click(chromedp.ID("switch-toggle")))
	p.waitFor(t, "the addresses", `!document.getElementById('switch-panel').hidden`)
	if got := p.switcherShows(t); strings.Join(got, " ") != "*"+third+" "+second+" "+first {
		t.Errorf("the list shows %q, want the three addresses that live", got)
	}
	secondToken := eval[string](t, p, fmt.Sprintf(`JSON.parse(localStorage.getItem('tempmail.inboxes')).find((x) => x.address === %s).token`, jsString(second)))
	if code, body := call(t, "DELETE", base+"/inboxes/"+secondToken+"/", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE the second inbox: %d %s", code, body)
	}
	p.do(t, chromedp.Click(chromedp.CSS(`#switch-list li:nth-child(2) .switch-to`)))
	p.waitFor(t, "the notice", `document.getElementById('notice').textContent.includes('has expired or was deleted')`)
	if got := p.text(t, "#address"); got != third {
		t.Errorf("after failing to switch the page shows %s, want still %s", got, third)
	}
	if got := p.switcherShows(t); strings.Join(got, " ") != "*"+third+" "+first {
		t.Errorf("the list shows %q, want the deleted address gone", got)
	}
	if got := p.storedAddresses(t); strings.Join(got, " ") != third+" "+first {
		t.Errorf("the page keeps %q", got)
	}

	// At a phone's width, the buttons and the list fit.
	p.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	p.waitFor(t, "the phone's layout", `document.documentElement.clientWidth === 390`)
	if w := eval[int](t, p, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px, with the addresses shown, the page is %d px wide: it scrolls sideways", w)
	}
}

// Deleting a message takes it out of the list at once; the server deletes
// it only once the few seconds to undo it are up, or when the page is left.
// Undo works with the button and with Ctrl+Z.
func TestBrowserDeletingAMessageCanBeUndone(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	token := p.storedToken(t)
	p.waitLive(t)
	deliverSMTP(t, svc, address, signUpMail(address, "111111"))
	p.waitFor(t, "the first message", `document.querySelectorAll('.message-item').length === 1`)
	deliverSMTP(t, svc, address, signUpMail(address, "222222"))
	p.waitFor(t, "both messages", `document.querySelectorAll('.message-item').length === 2`)

	deleteFirst := func() string {
		t.Helper()
		p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
		p.waitFor(t, "the message", `!document.getElementById('message').hidden && document.getElementById('message-status').hidden`)
		id := eval[string](t, p, `document.querySelector('.message-item').dataset.id`)
		n := eval[int](t, p, `document.querySelectorAll('.message-item').length`)
		p.do(t, chromedp.Focus(chromedp.ID("message-delete")), chromedp.KeyEvent("\r"))
		p.waitFor(t, "the message out of the list", fmt.Sprintf(`document.querySelectorAll('.message-item').length === %d && document.getElementById('message').hidden`, n-1))
		p.waitFor(t, "the offer to undo", `!document.getElementById('toast').hidden && !document.getElementById('toast-undo').hidden`)
		return id
	}
	restored := func(id string) {
		t.Helper()
		p.waitFor(t, "the message back", `document.querySelectorAll('.message-item').length === 2 && document.getElementById('toast').hidden`)
		if got := eval[string](t, p, `document.activeElement.closest('.message-item')?.dataset.id ?? ''`); got != id {
			t.Errorf("after undo, focus is on %q, want the message back", got)
		}
		if n := len(listMessages(t, base, token)); n != 2 {
			t.Errorf("after undo, the server lists %d messages", n)
		}
	}

	// Undone with the button: nothing was asked of the server.
	id := deleteFirst()
	if n := len(listMessages(t, base, token)); n != 2 {
		t.Errorf("while it may be undone, the server lists %d messages, want 2", n)
	}
	if got := p.text(t, "#message-count"); !strings.HasPrefix(got, "1 message") {
		t.Errorf("the count says %q", got)
	}
	p.do(t, chromedp.Click(chromedp.ID("toast-undo")))
	restored(id)

	// Undone with Ctrl+Z, focus being in the list.
	id = deleteFirst()
	p.do(t, chromedp.KeyEvent("z", chromedp.KeyModifiers(kb.ModifierCtrl)))
	restored(id)

	// Not undone: deleted on the server when the time is up.
	id = deleteFirst()
	p.waitFor(t, "the time to undo over", `document.getElementById('toast').hidden`)
	serverSees(t, "the server to delete it", func() bool { return len(listMessages(t, base, token)) == 1 })
	if got := listMessages(t, base, token)[0].ID; got == id {
		t.Error("the server deleted the other message")
	}
	if n := eval[int](t, p, `document.querySelectorAll('.message-item').length`); n != 1 {
		t.Errorf("the list shows %d messages, want 1", n)
	}

	// Deleted, then the page is left at once: deleted all the same.
	deleteFirst()
	p.do(t, chromedp.Navigate(base+"/ui/icon.svg"))
	serverSees(t, "the server to delete it as the page was left", func() bool { return len(listMessages(t, base, token)) == 0 })
}
