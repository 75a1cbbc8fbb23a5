package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"tempmail/service/apitest"
	"testing"
)

// 40 creations racing at a quota of 10 leave exactly 10 inboxes; the
// others are told so, in the family's shape; an inbox deleted makes room
// for one more.
func TestRacingCreatesAtAQuotaLeaveTheQuota(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	tenant := h.NewTenant("racers", `{"inboxes":10}`)
	key, _ := h.NewKey(tenant, `["inboxes"]`)
	as := []string{"Authorization", "Bearer " + key, "Content-Type", "application/json"}
	const n = 40
	answers := make([]apitest.Response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			// Not h.do: only the test's goroutine may stop the test.
			answers[i] = <-h.Start("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, as...)
		})
	}
	close(start)
	wg.Wait()
	made, refused := []string{}, 0
	for _, r := range answers {
		switch {
		case r.Status == http.StatusCreated:
			made = append(made, r.JSON(t)["id"].(string))
		case r.Status == http.StatusForbidden && string(r.Body) == `{"error":"quota exceeded: inboxes 10 of 10"}`+"\n":
			refused++
		default:
			t.Errorf("a racing creation: %d %s", r.Status, r.Body)
		}
	}
	if len(made) != 10 || refused != n-10 {
		t.Fatalf("%d made and %d refused of %d racing at a quota of 10", len(made), refused, n)
	}

	// Beyond it, every family says so in its shape.
	h.Expect(h.Do("POST", "/api/create-temp-email/", `{}`, as...), http.StatusForbidden,
		`{"success":false,"error":"quota exceeded: inboxes 10 of 10"}`)
	h.Expect(h.Do("POST", "/inboxes/", ``, as...), http.StatusForbidden, `{"error":"quota exceeded: inboxes 10 of 10"}`)

	h.Expect(h.Do("DELETE", "/api/inboxes/"+made[0]+"/", "", as...), http.StatusNoContent, "")
	if r := h.Do("POST", "/inboxes/", ``, as...); r.Status != http.StatusCreated {
		t.Errorf("after one deleted: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("POST", "/inboxes/", ``, as...), http.StatusForbidden, `{"error":"quota exceeded: inboxes 10 of 10"}`)
	// By tenant: 11 made, 33 refused (30 racing, 2 in families B and C,
	// and the last).
	if n := h.Metric(`tempmail_tenant_inboxes_created_total{tenant="` + tenant + `"}`); n != 11 {
		t.Errorf("inboxes created by the tenant: %v", n)
	}
	if n := h.Metric(`tempmail_tenant_quota_refusals_total{quota="inboxes",tenant="` + tenant + `"}`); n != 33 {
		t.Errorf("creations its quota refused: %v", n)
	}
}

// A key lists its tenant's inboxes alone, newest first, paged and
// filtered, and reads its tenant's usage.
func TestAKeyListsItsTenantsInboxesAndUsage(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tenant := h.NewTenant("lister", `{"inboxes":5,"messages_per_day":100}`)
	key, _ := h.NewKey(tenant, `["inboxes"]`)
	other, _ := h.NewKey(h.NewTenant("other", ""), `["inboxes"]`)
	as := []string{"Authorization", "Bearer " + key, "Content-Type", "application/json"}
	var made []string
	for _, name := range []string{"first", "second", "third"} {
		r := h.Do("POST", "/inboxes/", `{"name":"`+name+`"}`, as...)
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		made = append(made, r.JSON(t)["address"].(string))
	}
	if r := h.Do("POST", "/inboxes/", `{"name":"not-mine"}`, "Authorization", "Bearer "+other); r.Status != http.StatusCreated {
		t.Fatalf("create another tenant's: %d %s", r.Status, r.Body)
	}
	h.TokenInbox() // and one of no tenant

	r := h.Do("GET", "/api/inboxes/?limit=2", "", as...)
	if r.Status != http.StatusOK || r.Header.Get("X-Total-Count") != "3" {
		t.Fatalf("list: %d %s (total %q)", r.Status, r.Body, r.Header.Get("X-Total-Count"))
	}
	var page []map[string]any
	if err := json.Unmarshal(r.Body, &page); err != nil || len(page) != 2 || page[0]["email"] != made[2] || page[1]["email"] != made[1] {
		t.Errorf("first page, newest first: %s", r.Body)
	}
	r = h.Do("GET", "/api/inboxes/?offset=2", "", as...)
	if err := json.Unmarshal(r.Body, &page); err != nil || len(page) != 1 || page[0]["email"] != made[0] {
		t.Errorf("second page: %s", r.Body)
	}
	r = h.Do("GET", "/api/inboxes/?address=SEC", "", as...)
	if err := json.Unmarshal(r.Body, &page); err != nil || len(page) != 1 || page[0]["email"] != made[1] {
		t.Errorf("filtered by address: %s", r.Body)
	}
	h.Expect(h.Do("GET", "/api/inboxes/?created_after=yesterday", "", as...), http.StatusBadRequest, "")
	h.Expect(h.Do("GET", "/api/usage/", "", as...), http.StatusOK,
		`{"inboxes":{"current":3,"limit":5},"messages_today":{"current":0,"limit":100},"storage_bytes":{"current":0,"limit":0},"webhooks":{"current":0,"limit":0}}`)
	h.Expect(h.Do("GET", "/api/usage/", ""), http.StatusUnauthorized, "")
	h.Expect(h.Do("GET", "/api/usage/", "", admin...), http.StatusBadRequest, "")
	// The admin asks about any tenant with tenant=; a key about its own.
	h.Expect(h.Do("GET", "/api/usage/?tenant="+tenant, "", admin...), http.StatusOK,
		`{"inboxes":{"current":3,"limit":5},"messages_today":{"current":0,"limit":100},"storage_bytes":{"current":0,"limit":0},"webhooks":{"current":0,"limit":0}}`)
	r = h.Do("GET", "/api/inboxes/?tenant="+tenant+"&limit=1", "", admin...)
	if err := json.Unmarshal(r.Body, &page); err != nil || len(page) != 1 || page[0]["email"] != made[2] || r.Header.Get("X-Total-Count") != "3" {
		t.Errorf("the admin's list of its inboxes: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("GET", "/api/usage/?tenant="+tenant, "", as...), http.StatusForbidden,
		`{"error":"tenant= is the admin's: a key asks about its own tenant"}`)
	h.Expect(h.Do("GET", "/api/usage/?tenant=00000000-0000-4000-8000-000000000000", "", admin...), http.StatusNotFound, `{"detail":"Not found."}`)
	h.Expect(h.Do("GET", "/api/inboxes/?tenant=nope", "", admin...), http.StatusNotFound, `{"detail":"Not found."}`)
	// The admin's lookup by address is the admin's still.
	h.Expect(h.Do("GET", "/api/inboxes/?email="+made[0], "", as...), http.StatusForbidden, "")
}

// The subscriptions to a tenant's inboxes, in all, stop at its
// quota.webhooks, 403 as the inbox quota answers; one deleted, or its
// inbox ended, makes room again; the usage counts them.
func TestSubscriptionsStopAtTheTenantsWebhookQuota(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate) // a target nothing listens on: no delivery is awaited
	tenant := h.NewTenant("hooked", `{"webhooks":2}`)
	key, _ := h.NewKey(tenant, `["inboxes","webhooks"]`)
	as := []string{"Authorization", "Bearer " + key, "Content-Type", "application/json"}
	var inboxes, tokens []string
	for range 2 {
		r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, as...)
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		inboxes = append(inboxes, r.JSON(t)["id"].(string))
		tokens = append(tokens, r.JSON(t)["access_token"].(string))
	}
	// Family C's subscriptions of an inbox: the key's webhooks scope.
	subscribe := func(inbox string) apitest.Response {
		token := tokens[slices.Index(inboxes, inbox)]
		return h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1:9/"}`, as...)
	}
	var subs []string
	for _, in := range []string{inboxes[0], inboxes[1]} {
		r := subscribe(in)
		if r.Status != http.StatusCreated {
			t.Fatalf("subscribe within the quota: %d %s", r.Status, r.Body)
		}
		subs = append(subs, r.JSON(t)["id"].(string))
	}
	h.Expect(subscribe(inboxes[0]), http.StatusForbidden, `{"error":"quota exceeded: webhooks 2 of 2"}`)
	h.Expect(h.Do("GET", "/api/usage/", "", as...), http.StatusOK,
		`{"inboxes":{"current":2,"limit":0},"messages_today":{"current":0,"limit":0},"storage_bytes":{"current":0,"limit":0},"webhooks":{"current":2,"limit":2}}`)

	h.Expect(h.Do("DELETE", "/inboxes/"+tokens[0]+"/webhooks/"+subs[0]+"/", "", as...), http.StatusNoContent, "")
	if r := subscribe(inboxes[0]); r.Status != http.StatusCreated {
		t.Fatalf("subscribe after one was deleted: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("DELETE", "/api/inboxes/"+inboxes[1]+"/", "", as...), http.StatusNoContent, "")
	if r := subscribe(inboxes[0]); r.Status != http.StatusCreated {
		t.Fatalf("subscribe after an inbox with one ended: %d %s", r.Status, r.Body)
	}
	h.Expect(subscribe(inboxes[0]), http.StatusForbidden, `{"error":"quota exceeded: webhooks 2 of 2"}`)
}
