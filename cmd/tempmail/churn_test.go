package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// TestServerChurnLeavesEverythingWorking: a tenant's key makes a Mailosaur
// server with an 800-byte name and deletes it, 10,000 times, as an
// attacker did to wedge the views (each deleted server stayed in the one
// domain list every node reads, until it passed NATS's largest message).
// After it, a key is revoked, a tenant deleted, a domain added and a
// tenant made, each answered as always; and the log and the views hold
// what they held before, give or take the last few events: what was
// deleted left both.
func TestServerChurnLeavesEverythingWorking(t *testing.T) {
	servicetest.Long(t)
	token := "churn-test-token"
	natsAddr := freeAddr(t)
	_, base := runServe(t, t.TempDir(), "--api-token", token, "--create-rate-per-client", "0", "--nats-listen", natsAddr)
	admin := []string{"Authorization", "Token " + token}
	churner := newTenant(t, base, token, "churner")
	key := newTenantKey(t, base, token, churner, `["inboxes"]`)
	other := newTenant(t, base, token, "other")
	otherKey := newTenantKey(t, base, token, other, `["inboxes"]`)
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(key+":"))
	name := strings.Repeat("\U0001F4E8", 200) // 200 characters, 800 bytes
	server := func() string {
		t.Helper()
		code, body := call(t, "POST", base+"/compat/mailosaur/api/servers", `{"name":"`+name+`"}`, "Authorization", basic)
		var s struct{ ID string }
		if code != http.StatusOK || json.Unmarshal(body, &s) != nil {
			t.Fatalf("make a server: %d %.300s", code, body)
		}
		return s.ID
	}
	drop := func(id string) {
		t.Helper()
		if code, body := call(t, "DELETE", base+"/compat/mailosaur/api/servers/"+id, "", "Authorization", basic); code != http.StatusNoContent {
			t.Fatalf("delete a server: %d %.300s", code, body)
		}
	}
	drop(server()) // the first cycle, before counting

	nc, err := nats.Connect("nats://" + natsAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	held := func() (events, views uint64) {
		t.Helper()
		forgotten(t, &clusterNode{name: "the service", base: base})
		for _, s := range []string{"EVENTS", "KV_VIEWS_1"} {
			st, err := js.Stream(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			info, err := st.Info(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if s == "EVENTS" {
				events = info.State.Msgs
			} else {
				views = info.State.Msgs
			}
		}
		return events, views
	}
	eventsBefore, viewsBefore := held()

	cycles := 10_000
	start := time.Now()
	for i := range cycles {
		drop(server())
		if i%1000 == 999 {
			t.Logf("%d cycles in %v", i+1, time.Since(start).Round(time.Second))
		}
	}
	t.Logf("%d servers made and deleted in %v, %v a cycle", cycles, time.Since(start).Round(time.Second),
		(time.Since(start) / time.Duration(cycles)).Round(time.Microsecond))
	// The views' tombstones of what was deleted expire a minute after it.
	var eventsAfter, viewsAfter uint64
	eventually.Within(t, 90*time.Second, "the views' tombstones expire", func() error {
		eventsAfter, viewsAfter = held()
		if viewsAfter > viewsBefore+50 {
			return errors.New("not yet")
		}
		return nil
	})
	if eventsAfter > eventsBefore+20 {
		t.Errorf("the log holds %d messages after %d servers made and deleted, %d before", eventsAfter, cycles, eventsBefore)
	}
	t.Logf("the log: %d messages before, %d after; the views: %d before, %d after", eventsBefore, eventsAfter, viewsBefore, viewsAfter)

	// Everything works as before.
	if code, body := call(t, "POST", base+"/compat/mailosaur/api/servers", `{"name":"another"}`, "Authorization",
		"Basic "+base64.StdEncoding.EncodeToString([]byte(otherKey+":"))); code != http.StatusOK {
		t.Errorf("another tenant's server: %d %s", code, body)
	}
	var keys []struct{ ID string }
	_, body := call(t, "GET", base+"/api/tenants/"+other+"/keys/", "", admin...)
	if err := json.Unmarshal(body, &keys); err != nil || len(keys) != 1 {
		t.Fatalf("the other tenant's keys: %s", body)
	}
	if code, body := call(t, "DELETE", base+"/api/keys/"+keys[0].ID+"/", "", admin...); code != http.StatusNoContent {
		t.Errorf("revoke a key: %d %s", code, body)
	}
	if code, _ := call(t, "GET", base+"/api/usage/", "", "Authorization", "Bearer "+otherKey); code != http.StatusUnauthorized {
		t.Errorf("the revoked key: %d, want 401", code)
	}
	if code, body := call(t, "DELETE", base+"/api/tenants/"+churner+"/", "", admin...); code != http.StatusNoContent {
		t.Errorf("delete the churning tenant: %d %s", code, body)
	}
	if code, body := call(t, "POST", base+"/api/domains/", `{"name":"after-the-churn.test"}`, admin...); code != http.StatusCreated {
		t.Errorf("add a domain: %d %s", code, body)
	}
	if code, body := call(t, "POST", base+"/api/tenants/", `{"name":"later"}`, admin...); code != http.StatusCreated {
		t.Errorf("make a tenant: %d %s", code, body)
	}
}
