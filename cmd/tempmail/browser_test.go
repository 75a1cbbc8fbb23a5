package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/smtp"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"tempmail/service"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"tempmail/mailauth/authtest"
)

// The page for people (package web), driven in headless Chromium against the
// whole service in process: what a person does with it, and what hostile
// mail must not be able to do to it.

// chromiumPath is where Debian's chromium package puts the browser; .ci/run
// installs it.
const chromiumPath = "/usr/bin/chromium"

// browserPage is one Chromium tab, with what it reported while the test ran.
type browserPage struct {
	ctx context.Context

	mu sync.Mutex
	// console holds the tab's console messages and uncaught exceptions.
	console []chromedp.ConsoleMessage
	// dialogs holds the texts of JavaScript dialogs (alert, confirm,
	// prompt). The page never opens one, and mail must not be able to.
	dialogs []string
}

// newBrowser starts headless Chromium with one tab of width × height CSS
// pixels, closed at the end of the test. Without Chromium the test is
// skipped, unless the environment variable CI is set: CI must run it.
func newBrowser(t *testing.T, width, height int64) *browserPage {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing, and CI must run the browser tests (.ci/run installs Debian's chromium)", chromiumPath)
		}
		t.Skipf("%s is not installed (apt-get install chromium): skipping the browser test", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		// The machine may have no network: Chromium's own background
		// connections would only fail, and loudly.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	// The first Do starts the browser and binds its life to the context it
	// is given: this one, without the deadline that the test's steps get.
	if err := chromedp.Do(tabCtx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(tabCtx, 2*time.Minute)
	t.Cleanup(cancel)
	p := &browserPage{ctx: ctx}

	console := chromedp.Console(ctx)
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.dialogs = append(p.dialogs, ev.Message)
			p.mu.Unlock()
			// Dismissed, or the tab would wait on it for ever.
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, m := range p.console {
			if m.IsException() {
				t.Errorf("the page threw: %s (%s:%d)", m.Text, m.URL, m.Line)
			}
			// The page must keep to its own policy (no inline script or
			// style). What the policies block in a mail's frame is them
			// doing their work.
			if strings.Contains(m.Text, "Content Security Policy") && !strings.Contains(m.URL, "/body.html") {
				t.Errorf("the page broke its policy: %s (%s)", m.Text, m.URL)
			}
		}
		if t.Failed() || os.Getenv("TEMPMAIL_CONSOLE") != "" {
			for _, m := range p.console {
				t.Logf("console %s (%s)", m, m.URL)
			}
		}
	})
	return p
}

// stepTimeout bounds each step, so that a page that never gets there fails
// the test with the step's name rather than at the test's deadline.
const stepTimeout = 10 * time.Second

// do runs actions on the page.
func (p *browserPage) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression on the page.
func eval[T any](t *testing.T, p *browserPage, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitFor waits until a JavaScript expression is true on the page.
func (p *browserPage) waitFor(t *testing.T, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// text is the text content of the first element that matches selector.
func (p *browserPage) text(t *testing.T, selector string) string {
	t.Helper()
	return eval[string](t, p, fmt.Sprintf(`document.querySelector(%s)?.textContent ?? ''`, jsString(selector)))
}

// address waits for the page to show an address and returns it.
func (p *browserPage) address(t *testing.T) string {
	t.Helper()
	p.waitFor(t, "an address", `!document.getElementById('address-row').hidden && document.getElementById('address').textContent.includes('@')`)
	return p.text(t, "#address")
}

// waitLive waits until the page holds its inbox's event stream.
func (p *browserPage) waitLive(t *testing.T) {
	t.Helper()
	p.waitFor(t, "the event stream", `document.getElementById('connection').dataset.state === 'live'`)
}

// frameEval evaluates a JavaScript expression in the message's frame. The
// frame is sandboxed, so Chromium runs it as a target of its own, which the
// page's DevTools session cannot reach into.
func (p *browserPage) frameEval(t *testing.T, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	for {
		infos, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatalf("the message frame: %v", err)
		}
		for _, in := range infos {
			if in.Type != "iframe" || !strings.Contains(in.URL, "/body.html") {
				continue
			}
			fctx, cancelFrame := chromedp.NewContext(ctx, chromedp.WithTargetID(in.TargetID), chromedp.WithDetachOnCancel())
			v, err := chromedp.Run(fctx, chromedp.Evaluate[string](expr))
			cancelFrame()
			if err != nil {
				t.Fatalf("in the message frame, %s: %v", expr, err)
			}
			return v
		}
		select {
		case <-ctx.Done():
			t.Fatal("the message frame never loaded")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (p *browserPage) dialogsSeen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.dialogs...)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// deliverSMTP delivers a message over SMTP, as a mail server would.
func deliverSMTP(t *testing.T, svc *service.Service, to, message string) {
	t.Helper()
	raw := strings.ReplaceAll(strings.TrimPrefix(message, "\n"), "\n", "\r\n")
	if err := smtp.SendMail(svc.SMTP.Addr(), nil, "shop@example.com", []string{to}, []byte(raw)); err != nil {
		t.Fatalf("send mail to %s: %v", to, err)
	}
}

// signUpMail is a multipart message with text, HTML and an attachment,
// carrying a one-time code.
func signUpMail(to, code string) string {
	return `
From: Example Shop <shop@example.com>
To: ` + to + `
Subject: Welcome to Example Shop
Date: ` + time.Now().Format(time.RFC1123Z) + `
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: multipart/alternative; boundary="inner"

--inner
Content-Type: text/plain; charset=utf-8

Hello Jane,

Your sign-up code is ` + code + `. It is valid for ten minutes.

--inner
Content-Type: text/html; charset=utf-8

<html><body><h1 id="greeting">Hello Jane</h1><p>Your sign-up code is <b>` + code + `</b>.</p></body></html>
--inner--

--outer
Content-Type: text/plain; charset=utf-8; name="invoice.txt"
Content-Disposition: attachment; filename="invoice.txt"

Invoice 7: thank you.
--outer--
`
}

// fetch fetches a URL of the service and returns its status, headers and body.
func fetch(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := testClient.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// storedToken is the token of the inbox the page keeps in localStorage.
func (p *browserPage) storedToken(t *testing.T) string {
	t.Helper()
	return eval[string](t, p, `JSON.parse(localStorage.getItem('tempmail.inbox') || '{}').token || ''`)
}

func TestBrowserMailArrivesLiveAndIsReadAndDeleted(t *testing.T) {
	// The page needs only what an inbox's token authorizes: with the read
	// key and the API token required, it works all the same.
	cfg := testConfig(t.TempDir())
	cfg.ReadKey = "a-read-key-the-page-never-has"
	cfg.RequireToken = true
	svc, base := startServiceWith(t, cfg)
	p := newBrowser(t, 1280, 900)

	// An address at once, kept across a reload.
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	token := p.storedToken(t)
	if !strings.HasSuffix(address, "@tempmail.test") || token == "" {
		t.Fatalf("address %q, stored token %q", address, token)
	}
	p.do(t, chromedp.Reload())
	if again := p.address(t); again != address {
		t.Fatalf("after a reload the page shows %s, want the same %s", again, address)
	}
	p.waitFor(t, "waiting for mail", `!document.getElementById('list-empty').hidden`)
	if got := p.text(t, "#waiting-address"); got != address {
		t.Errorf("an empty inbox says it waits for mail at %q, want %s", got, address)
	}
	if !strings.HasPrefix(p.text(t, "#expiry-text"), "Expires in 23 h") {
		t.Errorf("expiry says %q, want a countdown from 24 h", p.text(t, "#expiry-text"))
	}
	p.waitLive(t)

	// Mail arrives without a reload: the marker set now must survive.
	p.do(t, chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))
	deliverSMTP(t, svc, address, signUpMail(address, "482913"))
	p.waitFor(t, "the message in the list", `document.querySelectorAll('.message-item').length === 1`)
	if !eval[bool](t, p, `window.sameDocument === true`) {
		t.Fatal("the page reloaded to show the mail")
	}
	item := map[string]string{
		"from":    p.text(t, ".item-from"),
		"subject": p.text(t, ".item-subject"),
		"code":    p.text(t, ".item-code"),
		"files":   p.text(t, ".item-attachments-text"),
	}
	if item["from"] != "Example Shop" || item["subject"] != "Welcome to Example Shop" || item["code"] != "482913" ||
		item["files"] != "1 attachment" || !strings.Contains(p.text(t, ".item-preview"), "Hello Jane") {
		t.Errorf("list item %v, preview %q", item, p.text(t, ".item-preview"))
	}
	if !eval[bool](t, p, `document.querySelector('.message-item').classList.contains('unread')`) {
		t.Error("a new message is not shown unread")
	}
	p.waitFor(t, "new mail announced to screen readers",
		`document.getElementById('announce').textContent.startsWith('New message from Example Shop')`)

	// Opened with the keyboard: Enter on the list item.
	p.do(t, chromedp.Focus(chromedp.CSS(".message-open")), chromedp.KeyEvent("\r"))
	p.waitFor(t, "the message", `!document.getElementById('message').hidden && document.getElementById('message-status').hidden`)
	if got := p.text(t, "#message-subject"); got != "Welcome to Example Shop" {
		t.Errorf("subject %q", got)
	}
	if got := p.text(t, "#message-from"); got != "Example Shop <shop@example.com>" {
		t.Errorf("from %q", got)
	}
	if got := p.text(t, "#message-to"); got != address {
		t.Errorf("to %q, want %s", got, address)
	}
	if got := p.text(t, "#message-code-value"); got != "482913" {
		t.Errorf("code %q", got)
	}

	// The HTML, in its sandboxed frame.
	frame := eval[map[string]string](t, p, `(() => { const f = document.getElementById('message-frame');
		return {src: f.getAttribute('src'), sandbox: f.getAttribute('sandbox')}; })()`)
	if !strings.HasSuffix(frame["src"], "/messages/"+listMessages(t, base, token)[0].ID+"/body.html") {
		t.Errorf("frame src %q", frame["src"])
	}
	for _, power := range []string{"allow-scripts", "allow-same-origin", "allow-forms", "allow-top-navigation"} {
		if strings.Contains(frame["sandbox"], power) {
			t.Errorf("the frame's sandbox %q grants %s", frame["sandbox"], power)
		}
	}
	if got := p.frameEval(t, `document.getElementById('greeting')?.textContent ?? ''`); got != "Hello Jane" {
		t.Errorf("the frame shows %q, want the mail's HTML", got)
	}

	// The attachment downloads, and so does the raw message.
	link := eval[map[string]string](t, p, `(() => { const a = document.querySelector('#attachment-list a');
		return a ? {href: a.getAttribute('href'), download: a.getAttribute('download'), text: a.textContent} : {}; })()`)
	if link["text"] != "invoice.txt" || link["download"] != "invoice.txt" {
		t.Errorf("attachment link %v", link)
	}
	if code, _, body := fetch(t, base+link["href"]); code != 200 || !strings.Contains(body, "Invoice 7") {
		t.Errorf("the attachment link answers %d %q", code, body)
	}
	eml := eval[string](t, p, `document.getElementById('message-download').getAttribute('href')`)
	if code, h, body := fetch(t, base+eml); code != 200 || !strings.Contains(h.Get("Content-Disposition"), "attachment") ||
		!strings.Contains(body, "Subject: Welcome to Example Shop") {
		t.Errorf(".eml download: %d %v", code, h)
	}

	// Opening it marked it read, on the page and on the server.
	p.waitFor(t, "the message shown read", `!document.querySelector('.message-item').classList.contains('unread')`)
	if list := listMessages(t, base, token); len(list) != 1 || !list[0].IsRead {
		t.Errorf("after opening, the server lists %+v", list)
	}

	// Its text, headers and source.
	p.do(t, chromedp.Click(chromedp.ID("tab-text")))
	p.waitFor(t, "the text", `!document.getElementById('panel-text').hidden`)
	if got := p.text(t, "#message-text"); !strings.Contains(got, "Your sign-up code is 482913.") {
		t.Errorf("text view %q", got)
	}
	p.do(t, chromedp.Click(chromedp.ID("tab-headers")))
	p.waitFor(t, "the headers", `!document.getElementById('panel-headers').hidden && document.querySelectorAll('#headers-body tr').length > 0`)
	p.do(t, chromedp.Click(chromedp.ID("tab-source")))
	p.waitFor(t, "the source", `document.getElementById('message-source').textContent.includes('Subject: Welcome to Example Shop')`)

	// Escape closes the message and gives focus back to its list item.
	p.do(t, chromedp.KeyEvent(kb.Escape))
	p.waitFor(t, "the reader closed", `document.getElementById('message').hidden`)
	if !eval[bool](t, p, `document.activeElement?.classList.contains('message-open') ?? false`) {
		t.Error("after Escape, focus is not back on the message in the list")
	}

	// Deleted, it goes: from the page at once, and from the server once
	// the time to undo it is up (page_browser_test.go tests the undo).
	p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
	p.waitFor(t, "the message", `!document.getElementById('message').hidden`)
	p.do(t, chromedp.Click(chromedp.ID("message-delete")))
	p.waitFor(t, "the message gone", `document.querySelectorAll('.message-item').length === 0 && document.getElementById('message').hidden`)
	p.waitFor(t, "waiting for mail again", `!document.getElementById('list-empty').hidden`)
	p.waitFor(t, "the time to undo over", `document.getElementById('toast').hidden`)
	serverSees(t, "the server to delete the message", func() bool { return len(listMessages(t, base, token)) == 0 })

	// Mail deleted elsewhere (the API, another tab) goes from the page too.
	deliverSMTP(t, svc, address, signUpMail(address, "111111"))
	p.waitFor(t, "the second message", `document.querySelectorAll('.message-item').length === 1`)
	id := listMessages(t, base, token)[0].ID
	if code, body := call(t, "DELETE", base+"/inboxes/"+token+"/messages/"+id+"/", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE the message: %d %s", code, body)
	}
	p.waitFor(t, "the message deleted elsewhere gone", `document.querySelectorAll('.message-item').length === 0`)

	// At a phone's width the list and a message take turns.
	p.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	deliverSMTP(t, svc, address, signUpMail(address, "222222"))
	p.waitFor(t, "the third message", `document.querySelectorAll('.message-item').length === 1`)
	p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
	p.waitFor(t, "the message alone", `!document.getElementById('message').hidden && document.querySelector('.list-pane').offsetParent === null`)
	if w := eval[int](t, p, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px the page is %d px wide: it scrolls sideways", w)
	}
	p.do(t, chromedp.Click(chromedp.ID("message-close")))
	p.waitFor(t, "the list again", `document.querySelector('.list-pane').offsetParent !== null`)
}

// hostileMail tries, in every way mail has, to run script in the page, to
// navigate it, to read or write its storage, to open a dialog or to submit a
// form. Each payload leaves a mark (the title "PWNED", the URL /ui/pwned,
// localStorage "pwned", a dialog) that the test looks for.
const hostileMail = `
From: "<img src=x onerror=alert('from')>" <evil@example.com>
To: %s
Subject: <img src=x onerror="alert('subject')"> Your code 654321
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<html><head>
<base href="http://evil.test/">
<meta http-equiv="refresh" content="0;url=/ui/pwned">
<script>parent.document.title = 'PWNED'; localStorage.setItem('pwned', 'script'); alert('script'); top.location = '/ui/pwned';</script>
</head><body>
<a id="js" href="javascript:parent.document.title='PWNED';alert('link')" style="display:block;height:100px;margin:0;background:#fcc">a javascript: link</a>
<form action="/ui/pwned" method="get" style="margin:0"><input type="hidden" name="x" value="1"><button id="go" style="display:block;width:100%%;height:100px">a form</button></form>
<img src="x" onerror="parent.document.title = 'PWNED'; localStorage.setItem('pwned', 'img'); alert('img')">
<img src="relative.png">
<svg onload="alert('svg')" width="10" height="10"></svg>
<iframe src="javascript:parent.parent.document.title='PWNED'" width="10" height="10"></iframe>
<p id="marker">hostile body rendered</p>
</body></html>
`

func TestBrowserHostileMailRunsNothing(t *testing.T) {
	svc, base := startService(t, t.TempDir())
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	token := p.storedToken(t)
	p.waitLive(t)
	p.do(t, chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))

	deliverSMTP(t, svc, address, fmt.Sprintf(hostileMail, address))
	p.waitFor(t, "the hostile message", `document.querySelectorAll('.message-item').length === 1`)
	// Mail's words are text on the page, never markup.
	if got := p.text(t, ".item-subject"); got != `<img src=x onerror="alert('subject')"> Your code 654321` {
		t.Errorf("subject shown as %q", got)
	}
	if n := eval[int](t, p, `document.querySelectorAll('#messages img, #js, #marker').length`); n != 0 {
		t.Errorf("the list holds %d elements from mail", n)
	}
	p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
	p.waitFor(t, "the message", `!document.getElementById('message').hidden && document.getElementById('message-status').hidden`)
	if got := p.frameEval(t, `document.getElementById('marker')?.textContent ?? ''`); got != "hostile body rendered" {
		t.Fatalf("the hostile body is not shown: %q", got)
	}

	// The server's policy for the body, besides the frame's sandbox.
	src := eval[string](t, p, `document.getElementById('message-frame').getAttribute('src')`)
	if _, h, _ := fetch(t, base+src); !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("the body is served with the policy %q", h.Get("Content-Security-Policy"))
	}

	// Click the javascript: link and the form's button inside the frame.
	p.do(t, chromedp.Evaluate[chromedp.Void](`document.getElementById('message-frame').scrollIntoView()`))
	box := eval[struct{ X, Y float64 }](t, p, `(() => { const r = document.getElementById('message-frame').getBoundingClientRect();
		return {X: r.left, Y: r.top}; })()`)
	// Each takes focus when the click reaches it, the proof that it landed in
	// the frame; a click sent before the frame takes input is sent again.
	clickInFrame := func(x, y float64, id string) {
		t.Helper()
		for try := 0; ; try++ {
			p.do(t, chromedp.MouseClickXY(box.X+x, box.Y+y))
			deadline := time.Now().Add(time.Second)
			for time.Now().Before(deadline) {
				if p.frameEval(t, `document.activeElement?.id ?? ''`) == id {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			if try == 5 {
				t.Fatalf("clicks never reached #%s in the frame", id)
			}
		}
	}
	clickInFrame(60, 50, "js")
	clickInFrame(60, 160, "go")
	if n := eval[int](t, p, `document.querySelectorAll('#js, #go, #marker').length`); n != 0 {
		t.Errorf("the page's own document holds %d elements of the mail", n)
	}

	checkUntouched := func(when string) {
		t.Helper()
		if title := eval[string](t, p, `document.title`); strings.Contains(title, "PWNED") || !strings.HasSuffix(title, "tempmail") {
			t.Errorf("%s: the page's title is %q", when, title)
		}
		if loc := eval[string](t, p, `location.href`); loc != base+"/" {
			t.Errorf("%s: the page is at %s", when, loc)
		}
		if v := eval[string](t, p, `localStorage.getItem('pwned') ?? ''`); v != "" {
			t.Errorf("%s: mail wrote localStorage (%q)", when, v)
		}
		if !eval[bool](t, p, `window.sameDocument === true`) {
			t.Errorf("%s: the page was reloaded or replaced", when)
		}
		if d := p.dialogsSeen(); len(d) > 0 {
			t.Errorf("%s: dialogs opened: %q", when, d)
		}
		if loc := p.frameEval(t, `location.pathname`); !strings.HasSuffix(loc, "/body.html") {
			t.Errorf("%s: the frame navigated to %s", when, loc)
		}
		if p.storedToken(t) != token {
			t.Errorf("%s: the stored inbox changed", when)
		}
	}
	// Nothing here can be waited for, as the test is that nothing happens:
	// a moment for a payload to act, then every mark is looked for.
	time.Sleep(300 * time.Millisecond)
	checkUntouched("after opening the hostile message")

	// Remote content is the reader's choice, and a new frame URL.
	p.do(t, chromedp.Click(chromedp.ID("remote-toggle")))
	p.waitFor(t, "remote content allowed", `document.getElementById('message-frame').getAttribute('src').endsWith('body.html?remote=1')`)
	if got := p.frameEval(t, `document.getElementById('marker')?.textContent ?? ''`); got != "hostile body rendered" {
		t.Errorf("with remote content the frame shows %q", got)
	}
	time.Sleep(300 * time.Millisecond)
	checkUntouched("with remote content")
	infos, err := chromedp.Targets(p.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.Type == "page" && in.URL != base+"/" {
			t.Errorf("mail opened a window at %s", in.URL)
		}
	}
}

func TestBrowserChoosingDeletingAndLosingTheAddress(t *testing.T) {
	svc, base := startService(t, t.TempDir(), "tempmail.test", "other.test")
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	first := p.address(t)
	shown := first // the address the page should show

	// A chosen name and domain; the server's refusals are shown by the field.
	p.do(t, chromedp.Click(chromedp.ID("choose-toggle")))
	p.waitFor(t, "the domains", `document.querySelectorAll('#choose-domain option').length === 2`)
	choose := func(name, domain string) {
		t.Helper()
		p.do(t, chromedp.SetValue(chromedp.ID("choose-name"), name), chromedp.SetValue(chromedp.ID("choose-domain"), domain),
			chromedp.Click(chromedp.ID("choose-submit")))
	}
	refused := func(want, field string) {
		t.Helper()
		p.waitFor(t, "the error "+want, fmt.Sprintf(`!document.getElementById('choose-error').hidden && document.getElementById('choose-error').textContent.includes(%s)`, jsString(want)))
		if !eval[bool](t, p, fmt.Sprintf(`document.getElementById(%s).getAttribute('aria-invalid') === 'true'`, jsString(field))) {
			t.Errorf("error %q: #%s is not marked invalid", want, field)
		}
		if got := p.text(t, "#address"); got != shown {
			t.Errorf("after a refusal the address is %s, want still %s", got, shown)
		}
	}
	choose("Admin", "tempmail.test")
	refused("'admin' is reserved", "choose-name")
	choose("administrator", "other.test") // a CA's validation address, on any domain
	refused("'administrator' is reserved", "choose-name")
	choose("jane..doe", "tempmail.test")
	refused("'..'", "choose-name")
	// A domain the service stopped serving since the page loaded.
	p.do(t, chromedp.Evaluate[chromedp.Void](`document.getElementById('choose-domain').add(new Option('gone.test', 'gone.test'))`))
	choose("jane", "gone.test")
	refused("Domain not found or inactive", "choose-domain")

	choose("jane.doe", "other.test")
	p.waitFor(t, "the chosen address", `document.getElementById('address').textContent === 'jane.doe@other.test'`)
	shown = "jane.doe@other.test"
	if !eval[bool](t, p, `document.getElementById('choose-form').hidden && document.getElementById('choose-error').hidden`) {
		t.Error("after success the chooser stays open or keeps its error")
	}
	p.do(t, chromedp.Click(chromedp.ID("choose-toggle")))
	choose("jane.doe", "other.test")
	refused("Email name already taken", "choose-name")
	p.do(t, chromedp.KeyEvent(kb.Escape))
	p.waitFor(t, "the chooser closed", `document.getElementById('choose-form').hidden`)

	// "New address" starts over on the default domain.
	p.do(t, chromedp.Click(chromedp.ID("new-address")))
	p.waitFor(t, "a new address", `!['jane.doe@other.test', ''].includes(document.getElementById('address').textContent)`)
	if a := p.text(t, "#address"); !strings.HasSuffix(a, "@tempmail.test") || a == first {
		t.Errorf("new address %s", a)
	}

	// Deleting the inbox asks first, erases it, and gives a new address.
	before, token := p.text(t, "#address"), p.storedToken(t)
	p.waitLive(t)
	p.do(t, chromedp.Click(chromedp.ID("delete-inbox")))
	p.waitFor(t, "the confirmation", `document.getElementById('confirm-delete').open`)
	p.do(t, chromedp.Click(chromedp.CSS(`#confirm-delete button[value="delete"]`)))
	p.waitFor(t, "another address", fmt.Sprintf(`document.getElementById('address').textContent.includes('@') && document.getElementById('address').textContent !== %s`, jsString(before)))
	if code, _ := call(t, "GET", base+"/inboxes/"+token+"/", ""); code != http.StatusNotFound {
		t.Errorf("the deleted inbox answers %d", code)
	}
	if !eval[bool](t, p, `document.getElementById('expired').hidden && !document.getElementById('mail').hidden`) {
		t.Error("after deleting, the page shows the inbox as lost instead of the new one")
	}

	// Deleted behind the page's back (another tab, the API): the page says
	// so and offers a new address.
	p.waitLive(t)
	token = p.storedToken(t)
	if code, body := call(t, "DELETE", base+"/inboxes/"+token+"/", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE the inbox: %d %s", code, body)
	}
	p.waitFor(t, "the inbox shown deleted", `!document.getElementById('expired').hidden`)
	if got := p.text(t, "#expired-title"); got != "This inbox was deleted" {
		t.Errorf("deleted inbox says %q", got)
	}
	if p.storedToken(t) != "" {
		t.Error("the page still keeps the deleted inbox")
	}
	p.do(t, chromedp.Click(chromedp.ID("expired-new")))
	p.waitFor(t, "a fresh address", `document.getElementById('expired').hidden && !document.getElementById('mail').hidden`)
	p.address(t)
	p.waitLive(t)

	// The service goes away: the page says it is reconnecting.
	stop(svc)
	p.waitFor(t, "reconnecting", `['reconnecting', 'offline'].includes(document.getElementById('connection').dataset.state)`)
}

func TestBrowserShowsExpiry(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.TokenInboxTTL = 2 * time.Second
	_, base := startServiceWith(t, cfg)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	p.address(t)
	p.waitFor(t, "the countdown", `/^Expires in \d s$/.test(document.getElementById('expiry-text').textContent)`)
	p.waitFor(t, "the inbox shown expired", `!document.getElementById('expired').hidden`)
	if got := p.text(t, "#expired-title"); got != "This address has expired" {
		t.Errorf("expired inbox says %q", got)
	}
	// A reload after expiry gets a new address at once.
	p.do(t, chromedp.Reload())
	p.address(t)
	p.waitFor(t, "mail view", `!document.getElementById('mail').hidden && document.getElementById('expired').hidden`)
}

// TestScreenshots writes the README's pictures of the page, with mail in it:
// docs/img/page-light.png and page-dark.png at a desktop's width, and
// page-phone.png at a phone's. The message open is signed, from a domain
// whose SPF and DMARC records an in-process DNS serves, so that its checks
// pass, and it has a link. It runs only when asked, so that make test
// leaves them alone:
//
//	TEMPMAIL_SCREENSHOTS=1 go test -run TestScreenshots ./cmd/tempmail
func TestScreenshots(t *testing.T) {
	if os.Getenv("TEMPMAIL_SCREENSHOTS") == "" {
		t.Skip("set TEMPMAIL_SCREENSHOTS=1 to write docs/img/page-*.png")
	}
	dns := authtest.StartDNS(t)
	dns.TXT("acme.example", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.acme.example", "v=DMARC1; p=reject")
	key := authtest.NewKey(t, "acme.example", "mail")
	key.Publish(dns)
	cfg := testConfig(t.TempDir())
	cfg.AuthChecks, cfg.DNSResolver = true, dns.Addr
	svc, base := startServiceWith(t, cfg)
	code, body := call(t, "POST", base+"/inboxes/", `{"name": "jane.doe"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /inboxes/: %d %s", code, body)
	}
	var in struct {
		Token     string `json:"token"`
		Address   string `json:"address"`
		CreatedAt string `json:"created_at"`
		ExpiresAt string `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		t.Fatal(err)
	}
	// Another address this browser made, to switch to.
	code, other := call(t, "POST", base+"/inboxes/", `{"name": "jane.shop"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /inboxes/: %d %s", code, other)
	}
	mail := screenshotMail(in.Address)
	for _, m := range mail[:len(mail)-1] {
		deliverSMTP(t, svc, in.Address, m)
	}
	deliverAs(t, svc.SMTP.Addr(), "bounce@acme.example", in.Address, mail[len(mail)-1], key)
	// One read already, the others not, as an inbox in use looks.
	list := listMessages(t, base, in.Token)
	if code, body := call(t, "POST", base+"/inboxes/"+in.Token+"/messages/"+list[2].ID+"/read/", "{}"); code != http.StatusOK {
		t.Fatalf("mark read: %d %s", code, body)
	}

	shoot := func(name string, width, height int64, dark, open bool) {
		t.Helper()
		p := newBrowser(t, width, height)
		scheme := "light"
		if dark {
			scheme = "dark"
		}
		if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		}); err != nil {
			t.Fatal(err)
		}
		// The page takes the inbox from localStorage, as after a reload.
		current, _ := json.Marshal(in)
		p.do(t, chromedp.Navigate(base+"/ui/icon.svg"),
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem('tempmail.inbox', %s);
				localStorage.setItem('tempmail.inboxes', %s)`, jsString(string(current)), jsString("["+string(other)+","+string(current)+"]"))),
			chromedp.Navigate(base+"/"))
		p.waitLive(t)
		p.waitFor(t, "the mail and the other address", `document.querySelectorAll('.message-item').length === 4 &&
			!document.getElementById('switch-toggle').hidden`)
		if open {
			p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
			p.frameEval(t, `document.readyState`)
			p.waitFor(t, "the message, its checks and its link", `document.getElementById('message-status').hidden &&
				document.getElementById('message-auth').textContent.includes('DMARC pass') && !document.getElementById('message-links').hidden`)
		}
		// No focus ring or caret in the picture.
		p.do(t, chromedp.Evaluate[chromedp.Void](`document.activeElement?.blur(); window.scrollTo(0, 0)`))
		png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		path := "../../docs/img/" + name
		if err := os.MkdirAll("../../docs/img", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d KB)", path, len(png)/1024)
	}
	shoot("page-light.png", 1280, 900, false, true)
	shoot("page-dark.png", 1280, 900, true, true)
	shoot("page-phone.png", 390, 844, false, false)
}

// screenshotMail is an inbox's worth of ordinary mail, oldest first; the
// last is from acme.example.
func screenshotMail(to string) []string {
	head := func(from, subject, contentType string) string {
		return "\nFrom: " + from + "\nTo: " + to + "\nSubject: " + subject +
			"\nMIME-Version: 1.0\nContent-Type: " + contentType + "\n\n"
	}
	return []string{
		head("Orbit Notes <hello@orbitnotes.example>", "Welcome to the Orbit Notes beta", "text/plain; charset=utf-8") +
			"Hi Jane,\n\nthanks for joining the beta. Your notes sync across all your devices from today.\n\nThe Orbit Notes team\n",
		head("Paper & Ink <billing@paperink.example>", "Your invoice #2041", `multipart/mixed; boundary="b"`) +
			"--b\nContent-Type: text/plain; charset=utf-8\n\nHello Jane, your invoice for order #2041 (2 notebooks, 1 fountain pen) is attached.\n" +
			"--b\nContent-Type: application/pdf; name=\"invoice-2041.pdf\"\nContent-Disposition: attachment; filename=\"invoice-2041.pdf\"\n" +
			"Content-Transfer-Encoding: base64\n\nJVBERi0xLjQKJcOkw7zDtsOfCjEgMCBvYmoKPDwvVHlwZS9DYXRhbG9nPj4KZW5kb2JqCnRyYWlsZXIKPDwvUm9vdCAxIDAgUj4+CiUlRU9GCg==\n--b--\n",
		head("Photo Share <security@photoshare.example>", "Reset your password", "text/plain; charset=utf-8") +
			"Someone asked to reset the password of your Photo Share account. If it was you, open the link below within an hour.\n",
		head("Acme Cloud <no-reply@acme.example>", "Confirm your email address", `multipart/alternative; boundary="a"`) +
			"--a\nContent-Type: text/plain; charset=utf-8\n\nHi Jane, your Acme Cloud verification code is 482913. It expires in 10 minutes.\n" +
			"--a\nContent-Type: text/html; charset=utf-8\n\n" +
			`<div style="font-family:Helvetica,Arial,sans-serif;max-width:520px;margin:28px auto;color:#1f2933">` +
			`<p style="font-size:20px;font-weight:bold;color:#1a56db;margin:0 0 18px">&#9729; Acme Cloud</p>` +
			`<h1 style="font-size:22px;margin:0 0 12px">Confirm your email address</h1>` +
			`<p style="font-size:15px;line-height:1.5">Hi Jane, thanks for signing up. Enter this code to confirm your address:</p>` +
			`<p style="font-size:34px;letter-spacing:10px;font-weight:bold;background:#eef2ff;padding:18px;text-align:center;border-radius:10px;margin:18px 0">482913</p>` +
			`<p style="font-size:15px;line-height:1.5">Or <a href="https://acme.example/confirm?code=482913" style="color:#1a56db">confirm your address</a> with one click.</p>` +
			`<p style="font-size:13px;color:#667085;line-height:1.5">The code expires in 10 minutes. If you did not sign up, you can ignore this email.</p></div>` +
			"\n--a--\n",
	}
}

func TestBrowserShowsOlderMessagesOnRequest(t *testing.T) {
	svc, base := startService(t, t.TempDir())
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	p.address(t)
	token := p.storedToken(t)
	for i := range 55 {
		deliverTo(t, svc, token, fmt.Sprint("message ", i))
	}
	// The page lists a page of 50, newest first, and the rest on request.
	p.do(t, chromedp.Reload())
	p.waitFor(t, "the first page", `document.querySelectorAll('.message-item').length === 50 && !document.getElementById('load-more').hidden`)
	if got := p.text(t, ".item-subject"); got != "message 54" {
		t.Errorf("the list starts with %q, want the newest", got)
	}
	p.do(t, chromedp.Click(chromedp.ID("load-more")))
	p.waitFor(t, "every message", `document.querySelectorAll('.message-item').length === 55 && document.getElementById('load-more').hidden`)
	if got := eval[string](t, p, `[...document.querySelectorAll('.item-subject')].at(-1).textContent`); got != "message 0" {
		t.Errorf("the list ends with %q, want the oldest", got)
	}
	if got := p.text(t, "#message-count"); got != "55 messages, 55 unread" {
		t.Errorf("count %q", got)
	}
}
