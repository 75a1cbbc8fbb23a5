package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service/apitest"
	"tempmail/service/servicetest"
)

// addDomain adds a domain through POST /api/domains/ as the admin and
// returns the answer.
func addDomain(h *apitest.Harness, body string) map[string]any {
	h.T.Helper()
	r := h.Do("POST", "/api/domains/", body, admin...)
	if r.Status != http.StatusCreated {
		h.T.Fatalf("add domain %s: %d %s", body, r.Status, r.Body)
	}
	return r.JSON(h.T)
}

// listsDomain reports whether GET /api/domains/, with headers, lists name.
func listsDomain(h *apitest.Harness, name string, headers ...string) bool {
	h.T.Helper()
	return listsDomainOf(h, "", name, headers...)
}

// listsDomainOf is listsDomain with ?tenant=tenant (the admin's: a
// tenant's private domains beside the public ones).
func listsDomainOf(h *apitest.Harness, tenant, name string, headers ...string) bool {
	h.T.Helper()
	path := "/api/domains/"
	if tenant != "" {
		path += "?tenant=" + tenant
	}
	r := h.Do("GET", path, "", headers...)
	if r.Status != http.StatusOK {
		h.T.Fatalf("domains: %d %s", r.Status, r.Body)
	}
	return strings.Contains(string(r.Body), `"name":"`+name+`"`)
}

// A domain added at runtime is listed, takes inboxes and their mail, and
// a catch-all one makes the inbox of an address by its first message; no
// restart between.
func TestADomainAddedAtRuntimeReceivesMail(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	d := addDomain(h, `{"name":"New.Example."}`)
	if d["name"] != "new.example" || d["mx"] != "mx.test" || d["catch_all"] != false || d["is_active"] != true || d["id"] != 3.0 {
		t.Errorf("added: %v", d)
	}
	if !listsDomain(h, "new.example") {
		t.Error("the new domain is not listed")
	}
	r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":3}`, "Content-Type", "application/json")
	if r.Status != http.StatusCreated {
		t.Fatalf("create on the new domain: %d %s", r.Status, r.Body)
	}
	in := r.JSON(t)
	addr := in["email"].(string)
	if !strings.HasSuffix(addr, "@new.example") {
		t.Fatalf("address %q", addr)
	}
	h.SendMail(addr, "From: shop@example.com\r\nSubject: on the new domain\r\n\r\nhi\r\n")
	h.Expect(h.Do("GET", "/address/latest/?wait=10&address="+url.QueryEscape(addr), ""), http.StatusOK, "")

	c := addDomain(h, `{"name":"catch.example","catch_all":true}`)
	if c["catch_all"] != true {
		t.Errorf("catch-all: %v", c)
	}
	const any = "signup-7@catch.example"
	h.SendMail(any, "From: shop@example.com\r\nSubject: Your code\r\n\r\nYour code is 482913.\r\n")
	got := h.Do("GET", "/address/latest/?wait=10&address="+url.QueryEscape(any), "", "Authorization", "Token "+apitest.TestToken)
	if got.Status != http.StatusOK || got.JSON(t)["subject"] != "Your code" {
		t.Errorf("the catch-all address: %d %s", got.Status, got.Body)
	}
	// Its inboxes are read by address as --catch-all-domains' are: not by
	// anyone.
	h.Expect(h.Do("GET", "/address/latest/?address="+url.QueryEscape(any), ""), http.StatusNotFound, "")
	// Mail to a domain never added is still refused.
	if err := servicetest.Mail(h.Service.SMTPAddr(), "x@elsewhere.example", "s", "b"); err == nil || !strings.Contains(err.Error(), "550") {
		t.Errorf("mail to a domain not served: %v", err)
	}
}

// Names are checked as DNS names, stored lower-case as A-labels; a name
// that exists, configured or added, is 409; an unknown tenant 404; only
// the admin adds domains.
func TestAddingADomainIsChecked(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for _, name := range []string{``, `localhost`, `-a.example`, `a-.example`, `a..example`, `.example`, `exa mple.com`,
		`under_score.example`, strings.Repeat("a", 64) + `.example`, strings.Repeat("abcdefghi.", 26) + `example`, `a@b.example`} {
		r := h.Do("POST", "/api/domains/", `{"name":`+strconv.Quote(name)+`}`, admin...)
		h.Expect(r, http.StatusBadRequest, `{"error":"name must be a domain name, such as mail.example.com"}`)
	}
	h.Expect(h.Do("POST", "/api/domains/", `{"name":1}`, admin...), http.StatusBadRequest, "")
	if d := addDomain(h, `{"name":"Bücher.Example"}`); d["name"] != "xn--bcher-kva.example" {
		t.Errorf("an internationalized name: %v", d)
	}
	for _, name := range []string{"tempmail.test", "OTHER.test", "xn--bcher-kva.example", "bücher.example"} {
		h.Expect(h.Do("POST", "/api/domains/", `{"name":"`+name+`"}`, admin...), http.StatusConflict, "")
	}
	h.Expect(h.Do("POST", "/api/domains/", `{"name":"t.example","tenant_id":"4f1f6a4e-3a57-4b8e-9b2c-0c1d2e3f4a5b"}`, admin...),
		http.StatusNotFound, `{"detail":"Not found."}`)
	h.Expect(h.Do("POST", "/api/domains/", `{"name":"t.example","tenant_id":"nope"}`, admin...), http.StatusNotFound, "")
	h.Expect(h.Do("POST", "/api/domains/", `{"name":"t.example"}`, "Content-Type", "application/json"), http.StatusUnauthorized, "")
	key, _ := h.NewKey(h.NewTenant("not admin", ""), `["inboxes"]`)
	h.Expect(h.Do("POST", "/api/domains/", `{"name":"t.example"}`, "Authorization", "Bearer "+key, "Content-Type", "application/json"),
		http.StatusForbidden, "")
	adminKey, _ := h.NewKey(h.NewTenant("admins", ""), `["admin"]`)
	h.Expect(h.Do("POST", "/api/domains/", `{"name":"t.example"}`, "Authorization", "Bearer "+adminKey, "Content-Type", "application/json"),
		http.StatusCreated, "")
}

// A private domain is its tenant's: only its keys see it and make inboxes
// there; to another tenant and to anonymous clients it is as if it did not
// exist. Its catch-all inboxes are the tenant's, and count in its quota.
func TestAPrivateDomainIsItsTenants(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reads the whole list of public domains
	a, b := h.NewTenant("a", `{"inboxes":2}`), h.NewTenant("b", "")
	keyA, _ := h.NewKey(a, `["inboxes"]`)
	keyB, _ := h.NewKey(b, `["inboxes"]`)
	asA := []string{"Authorization", "Bearer " + keyA, "Content-Type", "application/json"}
	asB := []string{"Authorization", "Bearer " + keyB, "Content-Type", "application/json"}
	anon := []string{"Content-Type", "application/json"}
	d := addDomain(h, `{"name":"a.example","tenant_id":"`+a+`","catch_all":true}`)
	if d["tenant_id"] != a {
		t.Errorf("added: %v", d)
	}
	id := strconv.Itoa(int(d["id"].(float64)))

	if !listsDomain(h, "a.example", asA...) || !listsDomainOf(h, a, "a.example", admin...) {
		t.Error("the private domain is not listed to its tenant, or to the admin asking for the tenant's")
	}
	if listsDomain(h, "a.example", admin...) {
		t.Error("the private domain is listed to the admin among the public ones")
	}
	if listsDomain(h, "a.example", asB...) || listsDomain(h, "a.example") {
		t.Error("the private domain is listed to another tenant or anonymously")
	}
	if r := h.Do("GET", "/ui/config.json", ""); strings.Contains(string(r.Body), "a.example") {
		t.Errorf("the page's config names the private domain: %s", r.Body)
	}
	for _, as := range [][]string{asB, anon} {
		h.Expect(h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":`+id+`}`, as...), http.StatusNotFound,
			`{"error":"Domain not found or inactive"}`)
		h.Expect(h.Do("POST", "/inboxes/", `{"domain":"a.example"}`, as...), http.StatusBadRequest,
			`{"error":"Domain not found or inactive"}`)
	}
	r := h.Do("POST", "/inboxes/", `{"domain":"a.example","name":"mine"}`, asA...)
	if r.Status != http.StatusCreated || r.JSON(t)["address"] != "mine@a.example" {
		t.Fatalf("the tenant's own inbox: %d %s", r.Status, r.Body)
	}

	// The first mail to an address makes an inbox of the tenant's.
	const caught = "signup-1@a.example"
	h.SendMail(caught, "From: shop@example.com\r\nSubject: caught\r\n\r\nhi\r\n")
	latest := "/address/latest/?wait=10&address=" + url.QueryEscape(caught)
	if r := h.Do("GET", latest, "", asA...); r.Status != http.StatusOK || r.JSON(t)["subject"] != "caught" {
		t.Errorf("the tenant reads its catch-all inbox: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("GET", "/address/latest/?address="+url.QueryEscape(caught), "", asB...), http.StatusNotFound, "")
	list := h.Do("GET", "/api/inboxes/", "", asA...)
	if !strings.Contains(string(list.Body), caught) || !strings.Contains(string(list.Body), "mine@a.example") {
		t.Errorf("the tenant's inboxes: %s", list.Body)
	}
	if strings.Contains(string(h.Do("GET", "/api/inboxes/", "", asB...).Body), caught) {
		t.Error("another tenant lists the catch-all inbox")
	}
	// Two inboxes: the tenant's quota is reached, by mail as by the API.
	h.Expect(h.Do("POST", "/inboxes/", `{"domain":"a.example"}`, asA...), http.StatusForbidden, `{"error":"quota exceeded: inboxes 2 of 2"}`)
}

// Two processes of one service (one NATS): a domain added through one
// takes mail through the other's SMTP server at once, without a restart.
func TestADomainAddedThroughOneProcessTakesMailOnAnother(t *testing.T) {
	t.Parallel()
	proxy := servicetest.ExternalNATS(t)
	shared := func(c *config.Config) { c.NATSURL = proxy.URL() }
	one := apitest.New(t, shared)
	two := apitest.New(t, shared)
	addDomain(one, `{"name":"shared.example","catch_all":true}`)
	const addr = "first@shared.example"
	two.SendMail(addr, "From: shop@example.com\r\nSubject: through two\r\n\r\nhi\r\n")
	r := one.Do("GET", "/address/latest/?wait=10&address="+url.QueryEscape(addr), "", "Authorization", "Token "+apitest.TestToken)
	if r.Status != http.StatusOK || r.JSON(t)["subject"] != "through two" {
		t.Errorf("read through one: %d %s", r.Status, r.Body)
	}
	eventually.True(t, "the other process lists the domain", func() bool { return listsDomain(two, "shared.example") })
}
