package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"tempmail/service/servicetest"
)

// The page, driven in headless Chromium against the whole service in
// process (servicetest): what a person does with it, and what hostile mail
// must not be able to do to it.

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
	)
	// The first Do starts the browser and binds its life to the context it
	// is given: this one, without the deadline that the test's steps get.
	// Chromium now and then exits as it starts when many start at once on
	// a loaded machine (CI saw "chrome failed to start" once in hundreds):
	// a start is tried three times, each in a profile of its own.
	var tabCtx context.Context
	for try := 1; ; try++ {
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			append(opts, chromedp.UserDataDir(t.TempDir()))...)
		ctx, cancelTab := chromedp.NewContext(allocCtx)
		err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height))
		if err == nil {
			tabCtx = ctx
			t.Cleanup(func() {
				cancelTab()
				cancelAlloc()
			})
			break
		}
		cancelTab()
		cancelAlloc()
		if try == 3 {
			t.Fatalf("start Chromium (%d tries): %v", try, err)
		}
		t.Logf("start Chromium, try %d: %v", try, err)
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

// signUpMail is a multipart message with text, HTML and an attachment,
// carrying a one-time code.
func signUpMail(to, code string) string {
	return `From: Example Shop <shop@example.com>
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
	resp, err := servicetest.Client.Get(url)
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
