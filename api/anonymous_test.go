package api_test

import (
	"net/http"
	"testing"

	"tempmail/config"
	"tempmail/service/apitest"
)

// Under --anonymous off, a client without a key makes no inbox in any
// family (401, saying what to send), while a tenant's key and the API
// token do; the page is told, so that it asks for a key.
func TestAnonymousOffNeedsAKeyToMakeAnInbox(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.AnonymousOff = true })
	const why = "an API key is needed to make an inbox on this server: send Authorization: Bearer <key>"
	h.Expect(h.Do("POST", "/inboxes/", ``), http.StatusUnauthorized, `{"error":"`+why+`"}`)
	h.Expect(h.Do("POST", "/api/create-temp-email/", `{}`, "Content-Type", "application/json"), http.StatusUnauthorized,
		`{"success":false,"error":"`+why+`"}`)
	h.Expect(h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, "Content-Type", "application/json"),
		http.StatusUnauthorized, `{"detail":"`+why+`"}`)
	if v := h.Do("GET", "/ui/config.json", "").JSON(t); v["anonymous"] != false {
		t.Errorf("the page's configuration: %v", v)
	}

	key, _ := h.NewKey(h.NewTenant("team", ""), `["inboxes"]`)
	if r := h.Do("POST", "/inboxes/", ``, "Authorization", "Bearer "+key); r.Status != http.StatusCreated {
		t.Errorf("with a key: %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, append([]string{"Content-Type", "application/json"}, admin...)...); r.Status != http.StatusCreated {
		t.Errorf("with the API token: %d %s", r.Status, r.Body)
	}
	// What an inbox's token reads needs no key, as before.
	r := h.Do("POST", "/inboxes/", ``, "Authorization", "Bearer "+key)
	token, _ := r.JSON(t)["token"].(string)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/messages/", ""), http.StatusOK, "[]\n")
}

// By default anyone makes inboxes, and the page says so.
func TestAnonymousOnByDefault(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	if r := h.Do("POST", "/inboxes/", ``); r.Status != http.StatusCreated {
		t.Errorf("without a key: %d %s", r.Status, r.Body)
	}
	if v := h.Do("GET", "/ui/config.json", "").JSON(t); v["anonymous"] != true {
		t.Errorf("the page's configuration: %v", v)
	}
}

// Under --anonymous-quota, keyless clients share one quota, the anonymous
// tenant's: every family's creations count against it together, a key's
// do not, and the admin sees its usage but cannot change it, nor give it
// keys or domains.
func TestKeylessClientsShareTheAnonymousQuota(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.AnonymousQuota = &config.Quota{Inboxes: 3, MessagesPerDay: 5} })
	h.TokenInbox()
	h.Expect(h.Do("POST", "/api/create-temp-email/", `{}`, "Content-Type", "application/json"), http.StatusCreated, "")
	r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, "Content-Type", "application/json")
	if r.Status != http.StatusCreated {
		t.Fatalf("the third: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("POST", "/inboxes/", ``), http.StatusForbidden, `{"error":"quota exceeded: inboxes 3 of 3"}`)
	key, _ := h.NewKey(h.NewTenant("team", ""), `["inboxes"]`)
	if r := h.Do("POST", "/inboxes/", ``, "Authorization", "Bearer "+key); r.Status != http.StatusCreated {
		t.Errorf("with a key: %d %s", r.Status, r.Body)
	}

	const anon = "/api/tenants/00000000-0000-0000-0000-000000000000/"
	if v := h.Do("GET", anon, "", admin...).JSON(t); v["name"] != "anonymous" || v["quota"].(map[string]any)["inboxes"] != 3.0 {
		t.Errorf("the anonymous tenant: %v", v)
	}
	const refused = `{"error":"the anonymous tenant is what clients without a key share: --anonymous-quota sets its quota, and it has no keys nor domains"}`
	h.Expect(h.Do("PATCH", anon, `{"quota":{"inboxes":100}}`, admin...), http.StatusConflict, refused)
	h.Expect(h.Do("DELETE", anon, ``, admin...), http.StatusConflict, refused)
	h.Expect(h.Do("POST", anon+"keys/", `{"name":"k","scopes":["inboxes"]}`, admin...), http.StatusConflict, refused)
	h.Expect(h.Do("POST", "/api/domains/", `{"name":"anon.test","tenant_id":"00000000-0000-0000-0000-000000000000"}`, admin...),
		http.StatusConflict, refused)
}
