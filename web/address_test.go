package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"tempmail/service/servicetest"
)

// The page's address, in headless Chromium (browser_test.go has the
// helpers): choosing one, losing one, its expiry, and the addresses this
// browser made.

func TestBrowserChoosingDeletingAndLosingTheAddress(t *testing.T) {
	cfg := servicetest.Config(t)
	cfg.Domains = []string{"tempmail.test", "other.test"}
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	first := p.address(t)
	shown := first // the address the page should show
	// Anyone makes addresses here (--anonymous on): no key is asked for.
	if !eval[bool](t, p, `document.getElementById('key-form').hidden && document.getElementById('key-kept').hidden`) {
		t.Error("the page asks for an API key where none is needed")
	}

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
	if code, _ := servicetest.Call(t, "GET", base+"/inboxes/"+token+"/", ""); code != http.StatusNotFound {
		t.Errorf("the deleted inbox answers %d", code)
	}
	if !eval[bool](t, p, `document.getElementById('expired').hidden && !document.getElementById('mail').hidden`) {
		t.Error("after deleting, the page shows the inbox as lost instead of the new one")
	}

	// Deleted behind the page's back (another tab, the API): the page says
	// so and offers a new address.
	p.waitLive(t)
	token = p.storedToken(t)
	if code, body := servicetest.Call(t, "DELETE", base+"/inboxes/"+token+"/", ""); code != http.StatusNoContent {
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
	servicetest.Stop(svc)
	p.waitFor(t, "reconnecting", `['reconnecting', 'offline'].includes(document.getElementById('connection').dataset.state)`)
}

func TestBrowserShowsExpiry(t *testing.T) {
	cfg := servicetest.Config(t)
	cfg.TokenInboxTTL = 2 * time.Second
	base := servicetest.URL(servicetest.Start(t, cfg))
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

// TestBrowserShowsExpiryWithoutItsStream: with the inbox's event stream
// out of reach, the page still learns that the inbox is gone, by asking
// the server (it cannot tell an expiry from a deletion then).
func TestBrowserShowsExpiryWithoutItsStream(t *testing.T) {
	cfg := servicetest.Config(t)
	cfg.TokenInboxTTL = 2 * time.Second
	base := servicetest.URL(servicetest.Start(t, cfg))
	p := newBrowser(t, 1280, 900)
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	blocked := network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/inboxes/*/events*", Block: true}}}
	if _, err := chromedp.Call(p.ctx, network.SetBlockedURLs, blocked); err != nil {
		t.Fatal(err)
	}
	p.do(t, chromedp.Navigate(base+"/"))
	p.address(t)
	p.waitFor(t, "the stream out of reach", `document.getElementById('connection').dataset.state !== 'live'`)
	p.waitFor(t, "the inbox shown gone", `!document.getElementById('expired').hidden`)
	if got := p.text(t, "#expired-title"); got != "This address has expired or was deleted" {
		t.Errorf("the expired inbox, its stream out of reach, says %q", got)
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
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	p := newBrowser(t, 1280, 900)
	p.do(t, chromedp.Navigate(base+"/"))
	first := p.address(t)
	firstToken := p.storedToken(t)
	p.waitLive(t)
	if !eval[bool](t, p, `document.getElementById('switch-toggle').hidden`) {
		t.Error("with one address, the page offers to switch")
	}
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", first, signUpMail(first, "111111"))
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
	// Yes, with the keyboard: Tab to the button and Enter, once the
	// question has its focus (a Tab before would leave the page's).
	p.do(t, chromedp.KeyEvent("\r"))
	p.waitFor(t, "the question", `document.getElementById('confirm-leave').open && document.activeElement.textContent === 'Cancel'`)
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
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", first, signUpMail(first, "222222"))
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
	if code, body := servicetest.Call(t, "DELETE", base+"/inboxes/"+secondToken+"/", ""); code != http.StatusNoContent {
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
