package web_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"

	"github.com/chromedp/chromedp"
)

// Mail written to attack the page, in headless Chromium (browser_test.go
// has the helpers): nothing in it runs, loads or navigates.

// hostileMail tries, in every way mail has, to run script in the page, to
// navigate it, to read or write its storage, to open a dialog or to submit a
// form. Each payload leaves a mark (the title "PWNED", the URL /ui/pwned,
// localStorage "pwned", a dialog) that the test looks for.
const hostileMail = `From: "<img src=x onerror=alert('from')>" <evil@example.com>
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
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	token := p.storedToken(t)
	p.waitLive(t)
	p.do(t, chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))

	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, fmt.Sprintf(hostileMail, address))
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
			focused := eventually.Poll(time.Second, func() error {
				if p.frameEval(t, `document.activeElement?.id ?? ''`) != id {
					return errors.New("not focused")
				}
				return nil
			})
			if focused == nil {
				return
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
