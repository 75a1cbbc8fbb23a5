package web_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"tempmail/service/servicetest"
)

// The link to an inbox, /#token=<token>, in headless Chromium
// (browser_test.go has the helpers): an inbox a CI job made, watched in a
// browser from its link, and the page's "Copy link".

// sentRequests records what the tab sends of every request it makes, as
// the browser reports it: its URL (the fragment is never sent) and its
// Referer.
type sentRequests struct {
	mu   sync.Mutex
	list []sentRequest
}

type sentRequest struct{ url, referer string }

func (p *browserPage) recordRequests(t *testing.T) *sentRequests {
	t.Helper()
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	s := &sentRequests{}
	events := chromedp.Events(p.ctx, network.RequestWillBeSent)
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			referer, _ := ev.Request.Headers["Referer"].(string)
			s.mu.Lock()
			s.list = append(s.list, sentRequest{ev.Request.URL, referer})
			s.mu.Unlock()
		}
	}()
	return s
}

// TestBrowserOpensAnInboxFromItsLink: a CI job makes an inbox and prints
// /#token=<its token>; that link opens the inbox in a browser, with the
// mail it holds and the mail that comes, and keeps it among the
// browser's addresses. The token leaves the address bar, and no request
// carries it but the family C calls the page makes (no Referer, and the
// page's own address is sent without its fragment). A link pasted into the tab opens that inbox; a link to
// an inbox that is gone, or that names none, says so.
func TestBrowserOpensAnInboxFromItsLink(t *testing.T) {
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	ci := servicetest.CreateInbox(t, base)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", ci.Address, signUpMail(ci.Address, "482913"))

	p := newBrowser(t, 1280, 900)
	sent := p.recordRequests(t)
	p.do(t, chromedp.Navigate(base+"/#token="+ci.Token))
	if got := p.address(t); got != ci.Address {
		t.Fatalf("the link opened %q, want the CI job's inbox %s", got, ci.Address)
	}
	p.waitFor(t, "the mail it holds", `document.querySelectorAll('#messages .message-item').length === 1`)
	p.waitLive(t)
	if href := eval[string](t, p, `location.href`); href != base+"/" {
		t.Errorf("the address bar shows %s, want %s/ (the token taken out)", href, base)
	}
	if got := p.storedToken(t); got != ci.Token {
		t.Errorf("the page keeps the inbox %q, want the linked one", got)
	}
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", ci.Address, signUpMail(ci.Address, "551204"))
	p.waitFor(t, "the mail that comes", `document.querySelectorAll('#messages .message-item').length === 2`)

	// A link pasted into this tab's address bar changes only the fragment.
	other := servicetest.CreateInbox(t, base)
	p.do(t, chromedp.Evaluate[chromedp.Void](`location.hash = `+jsString("token="+other.Token)))
	p.waitFor(t, "the other inbox", fmt.Sprintf(`document.getElementById('address').textContent === %s`, jsString(other.Address)))
	p.waitLive(t)
	if got := p.storedAddresses(t); len(got) != 2 {
		t.Errorf("the browser keeps %q, want both linked inboxes", got)
	}

	// Links to no inbox: the page says so and goes on showing the one it had.
	for _, c := range []struct{ fragment, says string }{
		{"token=" + strings.Repeat("A", 26), "The inbox this link opens has expired or was deleted."},
		{"token=%3Cb%3Ex%3C%2Fb%3E", "This link does not name an inbox."},
		{"token=", "This link does not name an inbox."},
	} {
		p.do(t, chromedp.Evaluate[chromedp.Void](`document.getElementById('notice').hidden = true; location.hash = `+jsString(c.fragment)))
		p.waitFor(t, "the notice for #"+c.fragment, fmt.Sprintf(`!document.getElementById('notice').hidden && document.getElementById('notice').textContent === %s`, jsString(c.says)))
		if got := p.text(t, "#address"); got != other.Address {
			t.Errorf("after #%s the page shows %s, want still %s", c.fragment, got, other.Address)
		}
	}

	// Opened in a browser that has no inbox yet, a link to one that is
	// gone says so over a new address.
	if code, body := servicetest.Call(t, "DELETE", base+"/inboxes/"+ci.Token+"/", ""); code != 204 {
		t.Fatalf("DELETE the CI inbox: %d %s", code, body)
	}
	q := newBrowser(t, 1280, 900)
	q.do(t, chromedp.Navigate(base+"/#token="+ci.Token))
	if got := q.address(t); got == ci.Address || got == "" {
		t.Errorf("a link to a deleted inbox shows %q, want a new address", got)
	}
	q.waitFor(t, "the notice", `document.getElementById('notice').textContent === 'The inbox this link opens has expired or was deleted.'`)

	sent.mu.Lock()
	defer sent.mu.Unlock()
	calls := 0
	for _, r := range sent.list {
		if r.referer != "" {
			t.Errorf("the page sent %s with Referer %s", r.url, r.referer)
		}
		if strings.HasPrefix(r.url, base+"/inboxes/"+ci.Token+"/") {
			calls++
		} else if strings.Contains(r.url, ci.Token) {
			t.Errorf("the page sent the token in %s", r.url)
		}
	}
	if calls == 0 || len(sent.list) < 5 {
		t.Errorf("the page's requests were not all seen: %q", sent.list)
	}
}

// TestBrowserCopiesALinkToTheInbox: "Copy link" puts the link to the inbox
// shown on the clipboard, says what the link gives whoever has it, and
// the link opens the same inbox in another browser.
func TestBrowserCopiesALinkToTheInbox(t *testing.T) {
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	if _, err := chromedp.CallBrowser(p.ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "clipboard-read"}, Setting: browser.PermissionSettingGranted, Origin: base}); err != nil {
		t.Fatal(err)
	}
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	token := p.storedToken(t)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, signUpMail(address, "482913"))

	p.do(t, chromedp.Click(chromedp.ID("copy-link")))
	p.waitFor(t, "Copied", `document.getElementById('copy-link').textContent === 'Copied'`)
	link, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("read the clipboard: %v", err)
	}
	if want := base + "/#token=" + token; link != want {
		t.Fatalf("the clipboard holds %q, want %q", link, want)
	}
	if got := p.text(t, "#notice"); !strings.Contains(got, "Anyone who has this link can read this inbox") {
		t.Errorf("after copying the link the page says %q", got)
	}
	p.waitFor(t, "the button's label back", `document.getElementById('copy-link').textContent === 'Copy link'`)

	// Another browser (none of this one's storage), at a phone's width.
	q := newBrowser(t, 390, 844)
	q.do(t, chromedp.Navigate(link))
	if got := q.address(t); got != address {
		t.Errorf("the copied link opened %q, want %s", got, address)
	}
	q.waitFor(t, "its mail", `document.querySelectorAll('#messages .message-item').length === 1`)
}
