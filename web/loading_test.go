package web_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"tempmail/service/servicetest"
)

// The page opened on an inbox that already holds mail (issue 43), in
// headless Chromium (browser_test.go has the helpers): from its first
// state on it says the list is loading, never that the inbox is empty,
// however its event stream and its list answer.

// recordListStates, run in the page before its own scripts
// (Page.addScriptToEvaluateOnNewDocument), keeps in window.listStates
// every state the message list passes through that a person could see:
// which of the list's texts show (the empty inbox's "Waiting for mail",
// "Loading messages…", the error), how many messages are listed, and
// the connection's state. A MutationObserver records the DOM as it is at
// the end of each script that changed it, so no state the page paints is
// missed.
const recordListStates = `(() => {
  const states = window.listStates = [];
  const shown = (id) => document.getElementById(id)?.checkVisibility() ?? false;
  const record = () => {
    const s = [
      shown('list-empty') || (document.body?.innerText ?? '').includes('Waiting for mail') ? 'empty' : '',
      shown('list-loading') ? 'loading' : '',
      shown('list-error') ? 'error' : '',
      'items=' + document.querySelectorAll('#messages .message-item').length,
      'connection=' + (shown('connection') ? document.getElementById('connection').dataset.state : 'none'),
    ].filter(Boolean).join(' ');
    if (states[states.length - 1] !== s) states.push(s);
  };
  new MutationObserver(record).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  record();
})();`

// recordStates has the tab record its list's states from the next page it
// loads on (recordListStates).
func (p *browserPage) recordStates(t *testing.T) {
	t.Helper()
	if _, err := chromedp.Call(p.ctx, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: recordListStates}); err != nil {
		t.Fatal(err)
	}
}

// listStates is what recordListStates has recorded so far.
func (p *browserPage) listStates(t *testing.T) []string {
	t.Helper()
	return eval[[]string](t, p, `window.listStates`)
}

// heldRequests are the requests for an inbox's event stream and for its
// list that the tab made and the test holds (the Fetch domain pauses
// them) until it lets each go on or fails it.
type heldRequests struct {
	stream, list chan cdpfetch.EventRequestPaused
}

// holdRequests pauses, from now on, every request of the tab for an
// inbox's event stream or for its list of messages.
func (p *browserPage) holdRequests(t *testing.T) *heldRequests {
	t.Helper()
	h := &heldRequests{stream: make(chan cdpfetch.EventRequestPaused, 8), list: make(chan cdpfetch.EventRequestPaused, 8)}
	paused := chromedp.Events(p.ctx, cdpfetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if strings.Contains(ev.Request.URL, "/events/") {
				h.stream <- ev
			} else {
				h.list <- ev
			}
		}
	}()
	if _, err := chromedp.Call(p.ctx, cdpfetch.Enable, cdpfetch.EnableParams{Patterns: []*cdpfetch.RequestPattern{
		{URLPattern: "*/inboxes/*/events/"},
		{URLPattern: "*/inboxes/*/messages/\\?*"},
	}}); err != nil {
		t.Fatal(err)
	}
	return h
}

// next waits for the tab's next request of one kind (h.stream or h.list).
func (h *heldRequests) next(t *testing.T, kind chan cdpfetch.EventRequestPaused, what string) cdpfetch.EventRequestPaused {
	t.Helper()
	select {
	case ev := <-kind:
		return ev
	case <-time.After(stepTimeout):
		t.Fatalf("the page never asked for %s", what)
		return cdpfetch.EventRequestPaused{}
	}
}

// release lets a held request go on to the server.
func (p *browserPage) release(t *testing.T, ev cdpfetch.EventRequestPaused) {
	t.Helper()
	if _, err := chromedp.Call(p.ctx, cdpfetch.ContinueRequest, cdpfetch.ContinueRequestParams{RequestID: ev.RequestID}); err != nil {
		t.Fatalf("let %s go on: %v", ev.Request.URL, err)
	}
}

// shoot writes what the tab shows to name in the folder the environment
// variable TEMPMAIL_SHOTS names, when it names one: pictures of the
// page's states to look at, kept out of the repository.
func (p *browserPage) shoot(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("TEMPMAIL_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// neverEmpty fails the test if the list was ever shown as an empty inbox.
func neverEmpty(t *testing.T, states []string) {
	t.Helper()
	for _, s := range states {
		if strings.HasPrefix(s, "empty") {
			t.Errorf("the page showed the inbox, which holds mail, as empty (\"Waiting for mail\"); the list's states were:\n%s",
				strings.Join(states, "\n"))
			return
		}
	}
}

// TestBrowserNeverShowsAnInboxWithMailAsEmpty (issue 43): opened at
// /#token= on an inbox that holds mail, the page says the list is loading
// while its event stream connects ("Connecting…") and while the list is
// on its way, and then shows the mail; it never says "Waiting for mail".
// The test holds the stream's request and then the list's, so that each
// wait lasts until it has looked. A list that cannot be loaded is said to
// be so, with "Try again", not shown as an empty inbox either.
func TestBrowserNeverShowsAnInboxWithMailAsEmpty(t *testing.T) {
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	in := servicetest.CreateInbox(t, base)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, signUpMail(in.Address, "482913"))
	serverSees(t, "the mail in the inbox's list", func() bool { return len(servicetest.Messages(t, base, in.Token)) == 1 })

	const loading = `document.getElementById('list-loading').checkVisibility()`
	const listed = `document.querySelectorAll('#messages .message-item').length === 1`

	p := newBrowser(t, 1280, 900)
	p.recordStates(t)
	held := p.holdRequests(t)
	p.do(t, chromedp.Navigate(base+"/#token="+in.Token))
	stream := held.next(t, held.stream, "the event stream")
	if got := p.address(t); got != in.Address {
		t.Fatalf("the link opened %q, want %s", got, in.Address)
	}
	// The stream is connecting: the list has not been asked for yet.
	p.waitFor(t, "the list's first state", loading+` || document.getElementById('list-empty').checkVisibility()`)
	p.shoot(t, "issue43-connecting.png")
	if !eval[bool](t, p, loading) || p.text(t, "#connection-text") != "Connecting…" {
		t.Errorf("while the stream connects the page shows %q", p.listStates(t))
	}

	p.release(t, stream)
	p.waitLive(t)
	list := held.next(t, held.list, "the list")
	if !eval[bool](t, p, loading) {
		t.Errorf("live, the list on its way, the page shows %q", p.listStates(t))
	}
	p.shoot(t, "issue43-live-loading.png")
	p.release(t, list)
	p.waitFor(t, "the mail it holds", listed)
	p.shoot(t, "issue43-loaded.png")
	states := p.listStates(t)
	neverEmpty(t, states)
	if !strings.Contains(strings.Join(states, "\n"), "loading items=0") {
		t.Errorf("the page never said it was loading the list: %q", states)
	}

	// The list cannot be loaded (the connection fails): the page says so.
	q := newBrowser(t, 1280, 900)
	q.recordStates(t)
	held = q.holdRequests(t)
	q.do(t, chromedp.Navigate(base+"/#token="+in.Token))
	q.release(t, held.next(t, held.stream, "the event stream"))
	list = held.next(t, held.list, "the list")
	if _, err := chromedp.Call(q.ctx, cdpfetch.FailRequest, cdpfetch.FailRequestParams{
		RequestID: list.RequestID, ErrorReason: network.ErrorReasonConnectionFailed}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the list's error", `document.getElementById('list-error').checkVisibility()`)
	q.shoot(t, "issue43-list-failed.png")
	if got := q.text(t, "#list-error-text"); !strings.Contains(got, "Could not load the messages") {
		t.Errorf("the list's error says %q", got)
	}
	q.do(t, chromedp.Click(chromedp.ID("list-retry")))
	q.release(t, held.next(t, held.list, "the list again"))
	q.waitFor(t, "the mail it holds", listed)
	neverEmpty(t, q.listStates(t))
}

// TestBrowserReloadedListIsNeverEmpty: when the event stream comes back
// with "reset" (away for longer than the server remembers deletions),
// the page loads its list afresh; while it does, the messages it shows
// stay listed (the list says it is refreshing): the list never empties,
// never says "Loading messages…" nor "Waiting for mail", and the open
// message's item stays where it was. The new page then takes their place:
// a message deleted meanwhile goes, one that came meanwhile shows. A
// reload that fails leaves the messages listed, with the error and its
// "Try again". The server ends each stream after a second
// (--max-stream-age); the test answers the page's reconnections itself,
// with the reset the server sends a client back from too long away, and
// holds each reload's list until it has looked.
func TestBrowserReloadedListIsNeverEmpty(t *testing.T) {
	cfg := servicetest.Config(t)
	cfg.MaxStreamAge = time.Second
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	in := servicetest.CreateInbox(t, base)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, signUpMail(in.Address, "482913"))
	if err := servicetest.Mail(svc.SMTPAddr(), in.Address, "Your order has shipped", "Tracking: 7."); err != nil {
		t.Fatal(err)
	}
	var kept, deleted string // the sign-up mail, opened; the other, deleted while the page is away
	serverSees(t, "the mail in the inbox's list", func() bool {
		list := servicetest.Messages(t, base, in.Token)
		if len(list) != 2 {
			return false
		}
		deleted, kept = list[0].ID, list[1].ID
		return true
	})
	item := func(id string) string {
		return `document.querySelector('#messages .message-item[data-id="` + id + `"]')`
	}
	const items = `document.querySelectorAll('#messages .message-item').length`

	p := newBrowser(t, 1280, 900)
	p.recordStates(t)
	p.do(t, chromedp.Navigate(base+"/#token="+in.Token))
	p.waitFor(t, "the mail it holds", items+` === 2`)
	p.waitLive(t)
	p.do(t, chromedp.Click(chromedp.CSS(`#messages .message-item[data-id="`+kept+`"] .message-open`)))
	p.waitFor(t, "the message open", `document.getElementById('message').checkVisibility()`)
	eval[bool](t, p, `(window.keptItem = `+item(kept)+`) !== null`)

	held := p.holdRequests(t)
	reset := func(what string) {
		t.Helper()
		again := held.next(t, held.stream, what)
		// What the server answers a client back from too long away.
		if _, err := chromedp.Call(p.ctx, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
			RequestID: again.RequestID, ResponseCode: 200,
			ResponseHeaders: []*cdpfetch.HeaderEntry{{Name: "Content-Type", Value: "text/event-stream"}},
			Body:            []byte("retry: 2000\n\nid: 999\nevent: reset\ndata: {}\n\n"),
		}); err != nil {
			t.Fatal(err)
		}
	}
	const refreshing = `document.getElementById('messages').getAttribute('aria-busy') === 'true' &&
		document.getElementById('message-count').textContent.includes('refreshing')`
	reset("the event stream again")
	list := held.next(t, held.list, "the list afresh")
	// The page showed what it does while the list is on its way before it
	// asked for the list.
	if got := eval[int](t, p, items); got != 2 || eval[bool](t, p, `document.getElementById('list-loading').checkVisibility()`) {
		t.Errorf("reloading its list, the page lists %d messages, want the 2 it showed: %q", got, p.listStates(t))
	}
	p.waitFor(t, "the list refreshing", refreshing)
	p.shoot(t, "reload-refreshing.png")
	// Meanwhile one message is deleted and another comes: the page hears
	// of neither (its stream is held) but from the list it is loading.
	if code, body := servicetest.Call(t, "DELETE", base+"/inboxes/"+in.Token+"/messages/"+deleted+"/", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE the message: %d %s", code, body)
	}
	if err := servicetest.Mail(svc.SMTPAddr(), in.Address, "Your parcel is on its way", "Tracking: 8."); err != nil {
		t.Fatal(err)
	}
	var came string
	serverSees(t, "the mail changed", func() bool {
		list := servicetest.Messages(t, base, in.Token)
		if len(list) != 2 || list[1].ID != kept {
			return false
		}
		came = list[0].ID
		return true
	})
	if got := eval[int](t, p, items); got != 2 {
		t.Errorf("reloading its list, the page lists %d messages, want the 2 it showed", got)
	}
	p.release(t, list)
	p.waitFor(t, "the new page", items+` === 2 && `+item(came)+` !== null && `+item(deleted)+` === null &&
		document.getElementById('messages').getAttribute('aria-busy') === 'false'`)
	if !eval[bool](t, p, `window.keptItem === `+item(kept)+` && window.keptItem.querySelector('.message-open').getAttribute('aria-current') === 'true'`) {
		t.Errorf("the open message's item did not stay in the list as it was")
	}
	if !eval[bool](t, p, `document.getElementById('message').checkVisibility()`) {
		t.Errorf("the open message was closed by the reload")
	}
	p.shoot(t, "reload-replaced.png")

	// The next reload fails: the messages stay, with the error and "Try again".
	reset("the event stream once more")
	list = held.next(t, held.list, "the list afresh again")
	if _, err := chromedp.Call(p.ctx, cdpfetch.FailRequest, cdpfetch.FailRequestParams{
		RequestID: list.RequestID, ErrorReason: network.ErrorReasonConnectionFailed}); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "the list's error", `document.getElementById('list-error').checkVisibility()`)
	p.shoot(t, "reload-failed.png")
	if got := eval[int](t, p, items); got != 2 {
		t.Errorf("its reload failed, the page lists %d messages, want the 2 it showed: %q", got, p.listStates(t))
	}
	p.do(t, chromedp.Click(chromedp.ID("list-retry")))
	p.release(t, held.next(t, held.list, "the list on \"Try again\""))
	p.waitFor(t, "the list again", items+` === 2 && !document.getElementById('list-error').checkVisibility() &&
		document.getElementById('messages').getAttribute('aria-busy') === 'false'`)
	if _, err := chromedp.Call(p.ctx, cdpfetch.Disable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}

	// From the first load on, the list never had fewer messages than 2
	// (what it showed, and what the server held), nor said it was loading.
	states := p.listStates(t)
	neverEmpty(t, states)
	first := slices.IndexFunc(states, func(s string) bool { return strings.Contains(s, "items=2") })
	if first < 0 {
		t.Fatalf("the list never showed the mail: %q", states)
	}
	for _, s := range states[first:] {
		if !strings.Contains(s, "items=2") || strings.Contains(s, "loading") {
			t.Errorf("after its first load the list was shown as %q; its states were:\n%s", s, strings.Join(states[first:], "\n"))
			break
		}
	}
}
