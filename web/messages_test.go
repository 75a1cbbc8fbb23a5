package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"tempmail/service/servicetest"
)

// Messages on the page, in headless Chromium (browser_test.go has the
// helpers): arriving live, read, deleted with undo, older ones on request.

func TestBrowserMailArrivesLiveAndIsReadAndDeleted(t *testing.T) {
	// The page needs only what an inbox's token authorizes: with the read
	// key and the API token required, it works all the same.
	cfg := servicetest.Config(t)
	cfg.ReadKey = "a-read-key-the-page-never-has"
	cfg.RequireToken = true
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
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
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, signUpMail(address, "482913"))
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
	if !strings.HasSuffix(frame["src"], "/messages/"+servicetest.Messages(t, base, token)[0].ID+"/body.html") {
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
	if list := servicetest.Messages(t, base, token); len(list) != 1 || !list[0].IsRead {
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
	// the time to undo it is up (TestBrowserDeletingAMessageCanBeUndone
	// tests the undo).
	p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
	p.waitFor(t, "the message", `!document.getElementById('message').hidden`)
	p.do(t, chromedp.Click(chromedp.ID("message-delete")))
	p.waitFor(t, "the message gone", `document.querySelectorAll('.message-item').length === 0 && document.getElementById('message').hidden`)
	p.waitFor(t, "waiting for mail again", `!document.getElementById('list-empty').hidden`)
	p.waitFor(t, "the time to undo over", `document.getElementById('toast').hidden`)
	serverSees(t, "the server to delete the message", func() bool { return len(servicetest.Messages(t, base, token)) == 0 })

	// Mail deleted elsewhere (the API, another tab) goes from the page too.
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, signUpMail(address, "111111"))
	p.waitFor(t, "the second message", `document.querySelectorAll('.message-item').length === 1`)
	id := servicetest.Messages(t, base, token)[0].ID
	if code, body := servicetest.Call(t, "DELETE", base+"/inboxes/"+token+"/messages/"+id+"/", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE the message: %d %s", code, body)
	}
	p.waitFor(t, "the message deleted elsewhere gone", `document.querySelectorAll('.message-item').length === 0`)

	// At a phone's width the list and a message take turns.
	p.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, signUpMail(address, "222222"))
	p.waitFor(t, "the third message", `document.querySelectorAll('.message-item').length === 1`)
	p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
	p.waitFor(t, "the message alone", `!document.getElementById('message').hidden && document.querySelector('.list-pane').offsetParent === null`)
	if w := eval[int](t, p, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px the page is %d px wide: it scrolls sideways", w)
	}
	p.do(t, chromedp.Click(chromedp.ID("message-close")))
	p.waitFor(t, "the list again", `document.querySelector('.list-pane').offsetParent !== null`)
}

func TestBrowserShowsOlderMessagesOnRequest(t *testing.T) {
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	p.address(t)
	token := p.storedToken(t)
	for i := range 55 {
		servicetest.Deliver(t, svc, token, fmt.Sprint("message ", i))
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

// Deleting a message takes it out of the list at once; the server deletes
// it only once the few seconds to undo it are up, or when the page is left.
// Undo works with the button and with Ctrl+Z.
func TestBrowserDeletingAMessageCanBeUndone(t *testing.T) {
	t.Parallel()
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	address := p.address(t)
	token := p.storedToken(t)
	p.waitLive(t)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, signUpMail(address, "111111"))
	p.waitFor(t, "the first message", `document.querySelectorAll('.message-item').length === 1`)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, signUpMail(address, "222222"))
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
		if n := len(servicetest.Messages(t, base, token)); n != 2 {
			t.Errorf("after undo, the server lists %d messages", n)
		}
	}

	// Undone with the button: nothing was asked of the server.
	id := deleteFirst()
	if n := len(servicetest.Messages(t, base, token)); n != 2 {
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
	serverSees(t, "the server to delete it", func() bool { return len(servicetest.Messages(t, base, token)) == 1 })
	if got := servicetest.Messages(t, base, token)[0].ID; got == id {
		t.Error("the server deleted the other message")
	}
	if n := eval[int](t, p, `document.querySelectorAll('.message-item').length`); n != 1 {
		t.Errorf("the list shows %d messages, want 1", n)
	}

	// Deleted, then the page is left at once: deleted all the same.
	deleteFirst()
	p.do(t, chromedp.Navigate(base+"/ui/icon.svg"))
	serverSees(t, "the server to delete it as the page was left", func() bool { return len(servicetest.Messages(t, base, token)) == 0 })
}
