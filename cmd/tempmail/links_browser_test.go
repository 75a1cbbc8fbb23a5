package main

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserShowsLinks: the message view lists a message's links, each
// with the URL it leads to, opening in a new tab without a referrer; a
// javascript: link in the mail is not among them.
func TestBrowserShowsLinks(t *testing.T) {
	svc, base := startService(t, t.TempDir())
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	p.waitLive(t)
	deliverSMTP(t, svc, address, `
From: Example Shop <shop@example.com>
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
