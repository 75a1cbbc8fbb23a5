package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tempmail/service/servicetest"
)

// Links in mail, on the page (browser_test.go has the helpers): listed,
// and opened in a new tab that tells the site nothing.

// TestBrowserShowsLinks: the message view lists a message's links, each
// with the URL it leads to, opening in a new tab without a referrer; a
// javascript: link in the mail is not among them.
func TestBrowserShowsLinks(t *testing.T) {
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	p.waitLive(t)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, `From: Example Shop <shop@example.com>
To: `+address+`
Subject: Confirm your address
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<p><a href="https://shop.example/verify?t=abc&amp;u=1">Confirm your address</a>
<a href="javascript:alert('link')">not a link</a></p>
`)
	p.waitFor(t, "the message in the list", `document.querySelectorAll('.message-item').length === 1`)
	p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
	p.waitFor(t, "the links", `!document.getElementById('message-links').hidden`)
	got := eval[[]map[string]string](t, p, `[...document.querySelectorAll('#link-list li')].map((li) => {
		const a = li.querySelector('a');
		return {text: a?.textContent ?? '', href: a?.getAttribute('href') ?? '', target: a?.target ?? '', rel: a?.rel ?? '',
			url: li.querySelector('.link-url')?.textContent ?? ''};
	})`)
	want := map[string]string{"text": "Confirm your address", "href": "https://shop.example/verify?t=abc&u=1",
		"target": "_blank", "rel": "noopener noreferrer nofollow", "url": "https://shop.example/verify?t=abc&u=1"}
	if len(got) != 1 || len(got[0]) != len(want) {
		t.Fatalf("links shown: %v", got)
	}
	for k, v := range want {
		if got[0][k] != v {
			t.Errorf("link %s %q, want %q", k, got[0][k], v)
		}
	}
	if !eval[bool](t, p, `document.getElementById('message-links').open`) {
		t.Error("one link is not shown open")
	}
	if got := p.text(t, "#link-count"); got != "(1)" {
		t.Errorf("link count %q", got)
	}
}

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
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	p.waitLive(t)
	p.do(t, chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, `From: Example Shop <shop@example.com>
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
