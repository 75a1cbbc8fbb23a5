package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"tempmail/service/servicetest"
)

// newTenant makes a tenant named name through the admin API of the
// service at base, with its API token, and returns the tenant's id.
func newTenant(t *testing.T, base, token, name string) string {
	t.Helper()
	status, body := servicetest.Call(t, "POST", base+"/api/tenants/", `{"name":"`+name+`"}`, "Authorization", "Token "+token)
	var v struct{ ID string }
	if err := json.Unmarshal(body, &v); status != http.StatusCreated || err != nil {
		t.Fatalf("tenant %s: %d %s", name, status, body)
	}
	return v.ID
}

// newTenantKey makes a key of tenant with scopes (a JSON array) and
// returns the key.
func newTenantKey(t *testing.T, base, token, tenant, scopes string) string {
	t.Helper()
	status, body := servicetest.Call(t, "POST", base+"/api/tenants/"+tenant+"/keys/", `{"name":"sdk","scopes":`+scopes+`}`,
		"Authorization", "Token "+token)
	var v struct{ Key string }
	if err := json.Unmarshal(body, &v); status != http.StatusCreated || err != nil {
		t.Fatalf("key: %d %s", status, body)
	}
	return v.Key
}
