package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"tempmail/service/servicetest"
)

// corsPage serves a page of its own origin, which calls the API of another.
func corsPage(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>another origin</title><p>calls the API")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// crossOriginCall has the page at pageURL create an inbox on api and list
// it, with headers that make the browser send a preflight first (a JSON
// body, the read key, a token), and says what the page could read.
func crossOriginCall(t *testing.T, p *browserPage, pageURL, api string) map[string]any {
	t.Helper()
	p.do(t, chromedp.Navigate(pageURL))
	eval[bool](t, p, `(() => {
		window.result = undefined;
		const api = `+jsString(api)+`;
		const headers = {'Content-Type': 'application/json', 'X-Read-Key': 'k', 'Authorization': 'Token t'};
		(async () => {
			try {
				const created = await fetch(api + '/inboxes/', {method: 'POST', headers, body: '{}'});
				const inbox = await created.json();
				const list = await fetch(api + '/inboxes/' + inbox.token + '/messages/', {headers});
				window.result = {ok: true, status: created.status, total: list.headers.get('X-Total-Count')};
			} catch (e) {
				window.result = {ok: false, error: String(e)};
			}
		})();
		return true;
	})()`)
	p.waitFor(t, "the cross-origin calls to end", `window.result !== undefined`)
	return eval[map[string]any](t, p, `window.result`)
}

// In Chromium, a page of an allowed origin calls the API (its preflights
// answered, X-Total-Count readable); a page of another origin cannot read
// anything; with *, any page can.
func TestBrowserCallsTheAPIFromAllowedOriginsOnly(t *testing.T) {
	allowed, other := corsPage(t), corsPage(t)
	p := newBrowser(t, 800, 600)

	cfg := servicetest.Config(t)
	cfg.CORSOrigins = []string{allowed.URL} // http://127.0.0.1:<port>: another origin than the API's port
	base := servicetest.URL(servicetest.Start(t, cfg))
	if r := crossOriginCall(t, p, allowed.URL, base); r["ok"] != true || r["status"] != 201.0 || r["total"] != "0" {
		t.Errorf("from the allowed origin: %v", r)
	}
	if r := crossOriginCall(t, p, other.URL, base); r["ok"] != false || !strings.Contains(fmt.Sprint(r["error"]), "Failed to fetch") {
		t.Errorf("from another origin: %v, want the browser to refuse", r)
	}
	// The browser did send preflights, and they were answered.
	if v, ok := servicetest.Metric(servicetest.Scrape(t, base), "tempmail_http_requests_total", `method="OPTIONS"`, `route="/inboxes"`, `status="204"`); !ok || v < 2 {
		t.Errorf("preflights of POST /inboxes/ answered 204: %v", v)
	}

	cfg = servicetest.Config(t)
	cfg.CORSOrigins = []string{"*"}
	base = servicetest.URL(servicetest.Start(t, cfg))
	if r := crossOriginCall(t, p, other.URL, base); r["ok"] != true || r["total"] != "0" {
		t.Errorf("with *: %v", r)
	}
}
