package web_test

import (
	"os"
	"path/filepath"
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
// the page loads its list afresh; while it does, it says the list is
// loading, not that the inbox is empty. The server ends each stream after
// a second (--max-stream-age); the test answers the page's reconnection
// itself, with the reset the server sends a client back from too long
// away.
func TestBrowserReloadedListIsNeverEmpty(t *testing.T) {
	cfg := servicetest.Config(t)
	cfg.MaxStreamAge = time.Second
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	in := servicetest.CreateInbox(t, base)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, signUpMail(in.Address, "482913"))
	serverSees(t, "the mail in the inbox's list", func() bool { return len(servicetest.Messages(t, base, in.Token)) == 1 })

	p := newBrowser(t, 1280, 900)
	p.recordStates(t)
	p.do(t, chromedp.Navigate(base+"/#token="+in.Token))
	p.waitFor(t, "the mail it holds", `document.querySelectorAll('#messages .message-item').length === 1`)
	p.waitLive(t)

	held := p.holdRequests(t)
	again := held.next(t, held.stream, "the event stream again")
	// What the server answers a client back from too long away.
	if _, err := chromedp.Call(p.ctx, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
		RequestID: again.RequestID, ResponseCode: 200,
		ResponseHeaders: []*cdpfetch.HeaderEntry{{Name: "Content-Type", Value: "text/event-stream"}},
		Body:            []byte("retry: 2000\n\nid: 999\nevent: reset\ndata: {}\n\n"),
	}); err != nil {
		t.Fatal(err)
	}
	list := held.next(t, held.list, "the list afresh")
	p.shoot(t, "issue43-reloading.png")
	if eval[bool](t, p, `document.getElementById('list-empty').checkVisibility()`) {
		t.Errorf("reloading its list, the page shows %q", p.listStates(t))
	}
	p.release(t, list)
	p.waitFor(t, "the mail again", `document.querySelectorAll('#messages .message-item').length === 1 &&
		!document.getElementById('list-loading').checkVisibility()`)
	if _, err := chromedp.Call(p.ctx, cdpfetch.Disable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	states := p.listStates(t)
	neverEmpty(t, states)
}
