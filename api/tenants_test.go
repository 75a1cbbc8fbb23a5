package api_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"tempmail/events"
	"tempmail/service"
	"tempmail/service/apitest"
	"tempmail/service/servicetest"
)

// admin is the API token, as the tenants' endpoints take it.
var admin = apitest.Admin()

func TestTheAdminManagesTenantsAndKeys(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	r := h.Do("POST", "/api/tenants/", `{"name":"team one","quota":{"inboxes":10,"webhooks":2}}`, admin...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	tn := r.JSON(t)
	id := tn["id"].(string)
	q := tn["quota"].(map[string]any)
	if tn["name"] != "team one" || q["inboxes"] != 10.0 || q["webhooks"] != 2.0 || q["storage_bytes"] != 0.0 {
		t.Errorf("created: %v", tn)
	}
	// Bearer takes the API token too.
	r = h.Do("PATCH", "/api/tenants/"+id+"/", `{"quota":{"inboxes":20}}`, "Authorization", "Bearer "+apitest.TestToken)
	if v := r.JSON(t); r.Status != http.StatusOK || v["name"] != "team one" || v["quota"].(map[string]any)["inboxes"] != 20.0 ||
		v["quota"].(map[string]any)["webhooks"] != 2.0 {
		t.Errorf("patched: %d %s", r.Status, r.Body)
	}
	expires := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	r = h.Do("POST", "/api/tenants/"+id+"/keys/", `{"name":"ci","scopes":["inboxes","read"],"expires_at":"`+expires+`"}`, admin...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create key: %d %s", r.Status, r.Body)
	}
	k := r.JSON(t)
	key := k["key"].(string)
	if !strings.HasPrefix(key, "tm_") || len(key) != 35 || k["tenant_id"] != id || k["expires_at"] == nil {
		t.Errorf("key: %v", k)
	}
	r = h.Do("GET", "/api/tenants/"+id+"/keys/", "", admin...)
	if r.Status != http.StatusOK || strings.Contains(string(r.Body), key) || !strings.Contains(string(r.Body), k["id"].(string)) {
		t.Errorf("keys: %d %s", r.Status, r.Body)
	}
	// A key without the admin scope may not manage tenants; one with it may.
	h.Expect(h.Do("GET", "/api/tenants/"+id+"/", "", "Authorization", "Bearer "+key), http.StatusForbidden, `{"error":"this key has no admin scope"}`)
	adminKey, _ := h.NewKey(id, `["admin"]`)
	if r := h.Do("GET", "/api/tenants/"+id+"/", "", "Authorization", "Token "+adminKey); r.Status != http.StatusOK {
		t.Errorf("with an admin key: %d %s", r.Status, r.Body)
	}
	// Revoked: refused at once, on any path.
	h.Expect(h.Do("DELETE", "/api/keys/"+k["id"].(string)+"/", "", admin...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", "/api/domains/", "", "Authorization", "Bearer "+key), http.StatusUnauthorized,
		`{"detail":"Invalid key: unknown, revoked or expired."}`)
	h.Expect(h.Do("DELETE", "/api/keys/"+k["id"].(string)+"/", "", admin...), http.StatusNotFound, `{"detail":"Not found."}`)

	h.Expect(h.Do("DELETE", "/api/tenants/"+id+"/", "", admin...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", "/api/tenants/"+id+"/", "", admin...), http.StatusNotFound, `{"detail":"Not found."}`)
	h.Expect(h.Do("GET", "/inboxes/x/", "", "Authorization", "Bearer "+adminKey), http.StatusUnauthorized,
		`{"error":"Invalid key: unknown, revoked or expired."}`)
}

func TestTenantsEndpointsRefuseHostileInputs(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	id := h.NewTenant("target", "")
	for _, c := range []struct {
		name, method, path, body string
		headers                  []string
		status                   int
	}{
		{"no credentials", "POST", "/api/tenants/", `{"name":"x"}`, nil, http.StatusUnauthorized},
		{"a wrong token", "POST", "/api/tenants/", `{"name":"x"}`, []string{"Authorization", "Token nope"}, http.StatusUnauthorized},
		{"a wrong bearer", "GET", "/api/domains/", "", []string{"Authorization", "Bearer nope"}, http.StatusUnauthorized},
		{"a malformed key", "GET", "/api/domains/", "", []string{"Authorization", "Bearer tm_short"}, http.StatusUnauthorized},
		{"an unknown key", "GET", "/inboxes/ABC/", "", []string{"Authorization", "Bearer tm_" + strings.Repeat("a", 32)}, http.StatusUnauthorized},
		{"an unknown key in family B", "GET", "/api/mailstore/mailbox/x/", "", []string{"Authorization", "Bearer tm_" + strings.Repeat("b", 32)}, http.StatusUnauthorized},
		{"a huge key", "GET", "/api/domains/", "", []string{"Authorization", "Bearer tm_" + strings.Repeat("a", 4000)}, http.StatusUnauthorized},
		{"no name", "POST", "/api/tenants/", `{}`, admin, http.StatusBadRequest},
		{"a long name", "POST", "/api/tenants/", `{"name":"` + strings.Repeat("n", 65) + `"}`, admin, http.StatusBadRequest},
		{"a name of odd characters", "POST", "/api/tenants/", `{"name":"a\u0000b"}`, admin, http.StatusBadRequest},
		{"a name with markup", "POST", "/api/tenants/", `{"name":"<script>"}`, admin, http.StatusBadRequest},
		{"a negative quota", "POST", "/api/tenants/", `{"name":"x","quota":{"inboxes":-1}}`, admin, http.StatusBadRequest},
		{"a huge quota", "POST", "/api/tenants/", `{"name":"x","quota":{"inboxes":99999999999}}`, admin, http.StatusBadRequest},
		{"a quota beyond int64", "POST", "/api/tenants/", `{"name":"x","quota":{"storage_bytes":1e300}}`, admin, http.StatusBadRequest},
		{"a fractional quota", "POST", "/api/tenants/", `{"name":"x","quota":{"webhooks":1.5}}`, admin, http.StatusBadRequest},
		{"domains not an array", "POST", "/api/tenants/", `{"name":"x","domains":"a.test"}`, admin, http.StatusBadRequest},
		{"a domain not a name", "POST", "/api/tenants/", `{"name":"x","domains":["a..test"]}`, admin, http.StatusBadRequest},
		{"a domain twice", "POST", "/api/tenants/", `{"name":"x","domains":["a.test","A.test"]}`, admin, http.StatusBadRequest},
		{"too many domains", "POST", "/api/tenants/", `{"name":"x","domains":["` + strings.Repeat(`a.test","`, 16) + `b.test"]}`, admin, http.StatusBadRequest},
		{"domains in a patch", "PATCH", "/api/tenants/" + id + "/", `{"domains":["a.test"]}`, admin, http.StatusBadRequest},
		{"a domain that exists", "POST", "/api/tenants/", `{"name":"x","domains":["other.test"]}`, admin, http.StatusConflict},
		{"a long name filter", "GET", "/api/tenants/?name=" + strings.Repeat("n", 65), "", admin, http.StatusBadRequest},
		{"a list by a key", "GET", "/api/tenants/", "", []string{"Authorization", "Bearer tm_" + strings.Repeat("c", 32)}, http.StatusUnauthorized},
		{"a list without credentials", "GET", "/api/tenants/", "", nil, http.StatusUnauthorized},
		{"a patch with a long name", "PATCH", "/api/tenants/" + id + "/", `{"name":"` + strings.Repeat("n", 65) + `"}`, admin, http.StatusBadRequest},
		{"an unknown tenant", "GET", "/api/tenants/00000000-0000-4000-8000-000000000000/", "", admin, http.StatusNotFound},
		{"a malformed tenant id", "GET", "/api/tenants/abc/", "", admin, http.StatusNotFound},
		{"a key without scopes", "POST", "/api/tenants/" + id + "/keys/", `{"name":"k"}`, admin, http.StatusBadRequest},
		{"a key with no scope", "POST", "/api/tenants/" + id + "/keys/", `{"name":"k","scopes":[]}`, admin, http.StatusBadRequest},
		{"a key with a bad scope", "POST", "/api/tenants/" + id + "/keys/", `{"name":"k","scopes":["root"]}`, admin, http.StatusBadRequest},
		{"a key expired already", "POST", "/api/tenants/" + id + "/keys/", `{"name":"k","scopes":["read"],"expires_at":"2001-01-01T00:00:00Z"}`, admin, http.StatusBadRequest},
		{"a key of a malformed expiry", "POST", "/api/tenants/" + id + "/keys/", `{"name":"k","scopes":["read"],"expires_at":"tomorrow"}`, admin, http.StatusBadRequest},
		{"a key of an unknown tenant", "POST", "/api/tenants/00000000-0000-4000-8000-000000000000/keys/", `{"name":"k","scopes":["read"]}`, admin, http.StatusNotFound},
		{"revoking an unknown key", "DELETE", "/api/keys/00000000-0000-4000-8000-000000000000/", "", admin, http.StatusNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := h.As(t).Do(c.method, c.path, c.body, c.headers...)
			if r.Status != c.status {
				t.Errorf("%d %s, want %d", r.Status, r.Body, c.status)
			}
		})
	}
}

// A rebuild replays tenants, keys and who owns which inbox: after it, a
// key reads its tenant's inbox, another tenant's key does not, and a
// revoked key stays refused.
func TestARebuildKeepsTenantsKeysAndOwnership(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	tenantA := h.NewTenant("a", `{"inboxes":7}`)
	keyA, _ := h.NewKey(tenantA, `["inboxes"]`)
	keyB, _ := h.NewKey(h.NewTenant("b", ""), `["inboxes"]`)
	revoked, revokedID := h.NewKey(tenantA, `["read"]`)
	h.Expect(h.Do("DELETE", "/api/keys/"+revokedID+"/", "", admin...), http.StatusNoContent, "")
	r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, "Authorization", "Bearer "+keyA, "Content-Type", "application/json")
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	inbox := "/api/inboxes/" + r.JSON(t)["id"].(string) + "/"

	cfg := h.Service.Config
	servicetest.Stop(h.Service)
	if _, err := service.Rebuild(t.Context(), cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	h.Service = servicetest.Start(t, cfg)
	h.URL = servicetest.URL(h.Service)

	if r := h.Do("GET", inbox, "", "Authorization", "Bearer "+keyA); r.Status != http.StatusOK {
		t.Errorf("its tenant's key after the rebuild: %d %s", r.Status, r.Body)
	}
	if r := h.Do("GET", inbox, "", "Authorization", "Bearer "+keyB); r.Status != http.StatusNotFound {
		t.Errorf("another tenant's key after the rebuild: %d %s", r.Status, r.Body)
	}
	if r := h.Do("GET", inbox, "", "Authorization", "Bearer "+revoked); r.Status != http.StatusUnauthorized {
		t.Errorf("a revoked key after the rebuild: %d %s", r.Status, r.Body)
	}
	r = h.Do("GET", "/api/tenants/"+tenantA+"/", "", admin...)
	if r.Status != http.StatusOK || r.JSON(t)["quota"].(map[string]any)["inboxes"] != 7.0 {
		t.Errorf("the tenant after the rebuild: %d %s", r.Status, r.Body)
	}
}

// The admin lists the tenants, oldest first, paged and by name; a tenant
// made with domains has them, private, and loses them when deleted.
func TestTheAdminListsTenantsAndGivesThemDomains(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it lists every tenant
	first := h.NewTenant("first", "")
	r := h.Do("POST", "/api/tenants/", `{"name":"second","domains":["Mail.Second.test","xn--bcher-kva.test"]}`, admin...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create with domains: %d %s", r.Status, r.Body)
	}
	second := r.JSON(t)
	if fmt.Sprint(second["domains"]) != "[mail.second.test xn--bcher-kva.test]" {
		t.Errorf("its domains: %v", second["domains"])
	}
	third := h.NewTenant("first", "") // names need not be unique

	r = h.Do("GET", "/api/tenants/", "", admin...)
	var list []struct {
		ID, Name string
		Domains  []string
	}
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != http.StatusOK || r.Header.Get("X-Total-Count") != "3" ||
		len(list) != 3 || list[0].ID != first || list[1].ID != second["id"] || list[2].ID != third || len(list[0].Domains) != 0 {
		t.Fatalf("the list: %d %s %v", r.Status, r.Body, r.Header.Get("X-Total-Count"))
	}
	r = h.Do("GET", "/api/tenants/?name=first&limit=1&offset=1", "", admin...)
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Header.Get("X-Total-Count") != "2" || len(list) != 1 || list[0].ID != third {
		t.Errorf("by name, paged: %s %v", r.Body, r.Header.Get("X-Total-Count"))
	}

	// Its domain is its own: its key makes inboxes there, another's does not.
	key, _ := h.NewKey(second["id"].(string), `["inboxes"]`)
	if r := h.Do("POST", "/inboxes/", `{"domain":"mail.second.test"}`, "Authorization", "Bearer "+key); r.Status != http.StatusCreated {
		t.Errorf("on its domain: %d %s", r.Status, r.Body)
	}
	other, _ := h.NewKey(first, `["inboxes"]`)
	h.Expect(h.Do("POST", "/inboxes/", `{"domain":"mail.second.test"}`, "Authorization", "Bearer "+other), http.StatusBadRequest,
		`{"error":"Domain not found or inactive"}`)

	// Deleted, the tenant takes its domains with it.
	h.Expect(h.Do("DELETE", "/api/tenants/"+second["id"].(string)+"/", "", admin...), http.StatusNoContent, "")
	if r := h.Do("GET", "/api/domains/", "", admin...); strings.Contains(string(r.Body), "second.test") {
		t.Errorf("its domains after it was deleted: %s", r.Body)
	}
	r = h.Do("GET", "/api/tenants/", "", admin...)
	if err := json.Unmarshal(r.Body, &list); err != nil || len(list) != 2 || r.Header.Get("X-Total-Count") != "2" {
		t.Errorf("the list after a deletion: %s", r.Body)
	}
	// The name is free again, for a domain of anyone's.
	if r := h.Do("POST", "/api/domains/", `{"name":"mail.second.test"}`, admin...); r.Status != http.StatusCreated {
		t.Errorf("the name again: %d %s", r.Status, r.Body)
	}
}

// TestADeletionCutShortIsFinishedByAnother: a tenant's deletion that
// recorded the tenant's end but not its inboxes' nor its domains' (the
// process stopped between them) leaves both alive; the admin's DELETE
// again ends them, and then answers 404.
func TestADeletionCutShortIsFinishedByAnother(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	r := h.Do("POST", "/api/tenants/", `{"name":"cut short","domains":["mail.cut.test"]}`, admin...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create tenant: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	key, _ := h.NewKey(id, `["inboxes"]`)
	r = h.Do("POST", "/inboxes/", `{"domain":"mail.cut.test"}`, "Authorization", "Bearer "+key)
	if r.Status != http.StatusCreated {
		t.Fatalf("an inbox with the tenant's key: %d %s", r.Status, r.Body)
	}
	token := r.JSON(t)["token"].(string)

	// The deletion's first event alone, as a process that stopped after it
	// recorded it.
	ctx := t.Context()
	tn, err := h.Service.Views.Reader.Tenant(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	ack, err := h.Service.Store.AppendTenantEvent(ctx, events.TenantDeleted{TenantID: id}, tn.Seq)
	if err == nil {
		err = h.Service.Views.Reader.WaitApplied(ctx, ack)
	}
	if err != nil {
		t.Fatal(err)
	}
	h.Expect(h.Do("GET", "/api/tenants/"+id+"/", "", admin...), http.StatusNotFound, "")
	if r := h.Do("GET", "/inboxes/"+token+"/", ""); r.Status != http.StatusOK {
		t.Fatalf("the inbox the cut left: %d %s", r.Status, r.Body)
	}
	if r := h.Do("GET", "/api/domains/?tenant="+id, "", admin...); !strings.Contains(string(r.Body), "mail.cut.test") {
		t.Fatalf("the domain the cut left: %s", r.Body)
	}

	h.Expect(h.Do("DELETE", "/api/tenants/"+id+"/", "", admin...), http.StatusNoContent, "")
	if r := h.Do("GET", "/inboxes/"+token+"/", ""); r.Status != http.StatusNotFound {
		t.Errorf("the inbox after the deletion was finished: %d %s", r.Status, r.Body)
	}
	if r := h.Do("GET", "/api/domains/", "", admin...); strings.Contains(string(r.Body), "mail.cut.test") {
		t.Errorf("the domain after the deletion was finished: %s", r.Body)
	}
	h.Expect(h.Do("DELETE", "/api/tenants/"+id+"/", "", admin...), http.StatusNotFound, "")
	// A tenant that never was is not found either.
	h.Expect(h.Do("DELETE", "/api/tenants/00000000-0000-4000-8000-000000000001/", "", admin...), http.StatusNotFound, "")
}
