package web_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"tempmail/service"
	"tempmail/service/servicetest"
)

// The page on a server that makes no inbox without an API key (--anonymous
// off), in headless Chromium (browser_test.go has the helpers).

// keyAdminToken is the API token of the services these tests start.
const keyAdminToken = "web-test-admin-token"

// keyServer starts the service under --anonymous off with a tenant whose
// quota is quota (JSON, "" for none), and returns it with the tenant's id.
func keyServer(t *testing.T, quota string) (*service.Service, string) {
	t.Helper()
	cfg := servicetest.Config(t)
	cfg.AnonymousOff = true
	cfg.APIToken = keyAdminToken
	svc := servicetest.Start(t, cfg)
	body := `{"name":"team"}`
	if quota != "" {
		body = `{"name":"team","quota":` + quota + `}`
	}
	var tenant struct{ ID string }
	adminCall(t, "POST", servicetest.URL(svc)+"/api/tenants/", body, &tenant)
	return svc, tenant.ID
}

// newKey makes a key of tenant with scopes (a JSON array) and returns it.
func newKey(t *testing.T, base, tenant, scopes string) string {
	t.Helper()
	var key struct{ Key string }
	adminCall(t, "POST", base+"/api/tenants/"+tenant+"/keys/", `{"name":"page","scopes":`+scopes+`}`, &key)
	return key.Key
}

// adminCall makes a request with the API token, which must answer 201,
// and reads its answer into v.
func adminCall(t *testing.T, method, url, body string, v any) {
	t.Helper()
	code, answer := servicetest.Call(t, method, url, body, "Authorization", "Token "+keyAdminToken)
	if code != http.StatusCreated {
		t.Fatalf("%s %s: %d %s", method, url, code, answer)
	}
	if err := json.Unmarshal(answer, v); err != nil {
		t.Fatal(err)
	}
}

// authorizedRequests records every request the tab sends with an
// Authorization header, as "METHOD URL".
type authorizedRequests struct {
	mu   sync.Mutex
	list []string
}

func (p *browserPage) recordAuthorized(t *testing.T) *authorizedRequests {
	t.Helper()
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	a := &authorizedRequests{}
	events := chromedp.Events(p.ctx, network.RequestWillBeSent)
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			if _, ok := ev.Request.Headers["Authorization"]; ok {
				a.mu.Lock()
				a.list = append(a.list, ev.Request.Method+" "+ev.Request.URL)
				a.mu.Unlock()
			}
		}
	}()
	return a
}

func (a *authorizedRequests) get() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.list)
}

// The page asks for a key where the server makes no address without one:
// a small form in place of the address, the server's refusals beside it
// (a wrong key, which is forgotten, and a key without the inboxes scope);
// the right key makes an address of the key's tenant, whose mail comes as
// always, and a reload keeps it without asking again. The key goes only
// with inbox creation; its tenant's quota, once used up, is said in the
// form, which Cancel closes on the address shown. Forgotten, the key is
// asked for at the next new address, while the address shown still
// resumes without it.
func TestBrowserAsksForAKeyWhereTheServerNeedsOne(t *testing.T) {
	t.Parallel()
	svc, tenant := keyServer(t, `{"inboxes":2}`)
	base := servicetest.URL(svc)
	key := newKey(t, base, tenant, `["inboxes"]`)
	readOnly := newKey(t, base, tenant, `["read"]`)
	var private struct{ Name string }
	adminCall(t, "POST", base+"/api/domains/", `{"name":"team.test","tenant_id":"`+tenant+`"}`, &private)

	p := newBrowser(t, 1280, 900)
	sent := p.recordAuthorized(t)
	p.do(t, chromedp.Navigate(base+"/"))
	p.waitFor(t, "the key form", `!document.getElementById('key-form').hidden`)
	if !eval[bool](t, p, `(() => {
		const hidden = (id) => document.getElementById(id).hidden;
		const input = document.getElementById('key-input');
		return hidden('address-row') && hidden('address-loading') && hidden('new-address') && hidden('delete-inbox') &&
			hidden('key-cancel') && hidden('key-error') && hidden('fatal') && input.type === 'password' &&
			input.labels[0].textContent === 'API key' && document.activeElement === input &&
			document.getElementById('key-form').getAttribute('aria-labelledby') === 'key-title' &&
			document.getElementById('key-title').textContent === 'This server needs an API key to make an address.';
	})()`) {
		t.Errorf("the key form, as shown: %s", eval[string](t, p, `document.querySelector('.inbox-card').outerHTML`))
	}
	if got := sent.get(); len(got) != 0 {
		t.Errorf("before a key was given the page sent %q", got)
	}

	useKey := func(k string) {
		t.Helper()
		p.do(t, chromedp.Evaluate[chromedp.Void](`document.getElementById('key-input').value = `+jsString(k)), chromedp.Click(chromedp.ID("key-submit")))
	}
	refused := func(want string) {
		t.Helper()
		p.waitFor(t, "the refusal "+want, fmt.Sprintf(`document.getElementById('key-error').textContent === %s && !document.getElementById('key-form').hidden`, jsString(want)))
		if !eval[bool](t, p, `document.getElementById('key-input').getAttribute('aria-invalid') === 'true' && document.getElementById('address-row').hidden`) {
			t.Errorf("after %q: the field is not marked invalid, or an address shows", want)
		}
	}
	storedKey := func() string {
		t.Helper()
		return eval[string](t, p, `JSON.parse(localStorage.getItem('tempmail.apikey') || '""')`)
	}
	useKey("")
	refused("Enter the API key.")
	useKey("tm_" + "WRONGWRONGWRONGWRONGWRONGWRONGWR")
	refused("Invalid key: unknown, revoked or expired.")
	if got := storedKey(); got != "" {
		t.Errorf("a refused key is kept: %q", got)
	}
	useKey(readOnly)
	refused("this key has no inboxes scope")

	useKey(key)
	address := p.address(t)
	if got := storedKey(); got != key {
		t.Errorf("the key kept is %q, want the one given", got)
	}
	if !eval[bool](t, p, `document.getElementById('key-form').hidden && !document.getElementById('new-address').hidden`) {
		t.Error("the key form stays, or the address's buttons do not come back")
	}
	// With the key, the chooser offers its tenant's private domain too.
	p.waitFor(t, "the tenant's domain in the chooser", `[...document.getElementById('choose-domain').options].some((o) => o.value === 'team.test')`)
	// The address is the key's tenant's.
	code, body := servicetest.Call(t, "GET", base+"/api/inboxes/", "", "Authorization", "Bearer "+key)
	var mine []struct{ Email string }
	if err := json.Unmarshal(body, &mine); code != http.StatusOK || err != nil || len(mine) != 1 || mine[0].Email != address {
		t.Errorf("the tenant's inboxes: %d %s, want %s", code, body, address)
	}
	p.waitLive(t)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, signUpMail(address, "482913"))
	p.waitFor(t, "the mail", `document.querySelector('#messages .item-subject')?.textContent === 'Welcome to Example Shop'`)

	// A reload keeps the address and asks nothing.
	p.do(t, chromedp.Reload())
	if got := p.address(t); got != address {
		t.Errorf("after a reload the page shows %s, want %s", got, address)
	}
	p.waitFor(t, "the mail again", `document.querySelectorAll('#messages .message-item').length === 1`)
	if !eval[bool](t, p, `document.getElementById('key-form').hidden`) {
		t.Error("after a reload the page asks for the key again")
	}

	// The kept key makes the next address; past the tenant's quota (two
	// inboxes) the form says so, and Cancel keeps the address shown.
	p.waitLive(t)
	p.do(t, chromedp.Click(chromedp.ID("new-address")))
	p.waitFor(t, "the leave dialog", `document.getElementById('confirm-leave').open`)
	p.do(t, chromedp.Click(chromedp.CSS(`#confirm-leave button[value="leave"]`)))
	p.waitFor(t, "a second address", fmt.Sprintf(`document.getElementById('address').textContent.includes('@') && document.getElementById('address').textContent !== %s`, jsString(address)))
	second := p.text(t, "#address")
	p.waitLive(t)
	p.do(t, chromedp.Click(chromedp.ID("new-address")))
	p.waitFor(t, "the quota said", `!document.getElementById('key-form').hidden && document.getElementById('key-error').textContent === 'quota exceeded: inboxes 2 of 2'`)
	if !eval[bool](t, p, `!document.getElementById('key-cancel').hidden && !document.getElementById('address-row').hidden`) {
		t.Error("under the address shown, the key form has no Cancel, or the address went")
	}
	p.do(t, chromedp.Click(chromedp.ID("key-cancel")))
	p.waitFor(t, "the form closed", `document.getElementById('key-form').hidden`)
	if got := p.text(t, "#address"); got != second {
		t.Errorf("after Cancel the page shows %s, want %s", got, second)
	}

	// "Forget key", in the chooser: the next address asks for it (Escape
	// closes the form), and the address shown resumes without it.
	p.do(t, chromedp.Click(chromedp.ID("choose-toggle")))
	p.waitFor(t, "the chooser's Forget key", `!document.getElementById('key-kept').hidden`)
	p.do(t, chromedp.Click(chromedp.ID("key-forget")))
	p.waitFor(t, "the key forgotten", `document.getElementById('key-kept').hidden && localStorage.getItem('tempmail.apikey') === null`)
	p.do(t, chromedp.Click(chromedp.ID("new-address")))
	p.waitFor(t, "the key asked for", `!document.getElementById('key-form').hidden && document.getElementById('key-error').hidden &&
		document.activeElement === document.getElementById('key-input')`)
	p.do(t, chromedp.KeyEvent(kb.Escape))
	p.waitFor(t, "the form closed by Escape", `document.getElementById('key-form').hidden`)
	p.do(t, chromedp.Reload())
	if got := p.address(t); got != second {
		t.Errorf("without a key, after a reload the page shows %s, want %s", got, second)
	}
	p.waitLive(t)
	if !eval[bool](t, p, `document.getElementById('key-form').hidden`) {
		t.Error("resuming an address asks for a key")
	}

	// The key went with the creations (the wrong one, the read-only one,
	// then the right one three times, the last past the quota) and with
	// the configuration, which lists the domains it may use (once it was
	// given, and at the reload while it was kept), and nowhere else.
	counts := map[string]int{}
	for _, r := range sent.get() {
		counts[r]++
	}
	config := "GET " + base + "/ui/config.json"
	if want := map[string]int{"POST " + base + "/inboxes/": 5, config: counts[config]}; !maps.Equal(counts, want) || counts[config] == 0 {
		t.Errorf("requests with Authorization: %v, want %v", counts, want)
	}
}
