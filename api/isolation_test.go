package api_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service/apitest"
	"tempmail/service/servicetest"
)

// A tenant's key sees its tenant's inboxes alone, through every family:
// another tenant's inbox, named by its id (A), its address (B) or its
// token (C), is no inbox at all (404, not 403). Without a key, the token
// and the address stay what they were: capabilities.
func TestAKeySeesItsTenantsInboxesAlone(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	keyA, _ := h.NewKey(h.NewTenant("a", ""), `["inboxes"]`)
	keyB, _ := h.NewKey(h.NewTenant("b", ""), `["inboxes"]`)
	asA := []string{"Authorization", "Bearer " + keyA, "Content-Type", "application/json"}
	asB := []string{"Authorization", "Bearer " + keyB, "Content-Type", "application/json"}

	// B's inboxes, one of each family, made with B's key.
	r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, asB...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create A: %d %s", r.Status, r.Body)
	}
	idA := r.JSON(t)["id"].(string)
	r = h.Do("POST", "/api/create-temp-email/", `{"email_name":"bees"}`, asB...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create B: %d %s", r.Status, r.Body)
	}
	r = h.Do("POST", "/inboxes/", "", asB...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create C: %d %s", r.Status, r.Body)
	}
	token, addrC := r.JSON(t)["token"].(string), r.JSON(t)["address"].(string)
	h.SendMail(addrC, "Subject: for b\r\n\r\nhello 123456\r\n")
	msg := h.WaitLatest(token, "")["id"].(string)

	for _, c := range []struct{ method, path string }{
		{"GET", "/api/inboxes/" + idA + "/"},
		{"GET", "/api/inboxes/" + idA + "/emails/"},
		{"DELETE", "/api/inboxes/" + idA + "/"},
		{"GET", "/api/emails/" + msg + "/"},
		{"DELETE", "/api/emails/" + msg + "/"},
		{"GET", "/api/mailstore/mailbox/bees/"},
		{"GET", "/inboxes/" + token + "/"},
		{"GET", "/inboxes/" + token + "/messages/"},
		{"GET", "/inboxes/" + token + "/messages/" + msg + "/"},
		{"GET", "/inboxes/" + token + "/latest/"},
		{"DELETE", "/inboxes/" + token + "/"},
		{"GET", "/address/latest/?address=" + addrC},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			t.Parallel()
			if r := h.As(t).Do(c.method, c.path, "", asA...); r.Status != http.StatusNotFound {
				t.Errorf("with another tenant's key: %d %s, want 404", r.Status, r.Body)
			}
		})
	}
	t.Run("its own", func(t *testing.T) {
		t.Parallel()
		h := h.As(t)
		for _, p := range []string{"/api/inboxes/" + idA + "/", "/api/emails/" + msg + "/", "/api/mailstore/mailbox/bees/",
			"/inboxes/" + token + "/messages/" + msg + "/"} {
			if r := h.Do("GET", p, "", asB...); r.Status != http.StatusOK {
				t.Errorf("GET %s with its tenant's key: %d %s", p, r.Status, r.Body)
			}
		}
		// No key: the token is the capability, as always.
		if r := h.Do("GET", "/inboxes/"+token+"/messages/"+msg+"/", ""); r.Status != http.StatusOK {
			t.Errorf("with the token alone: %d %s", r.Status, r.Body)
		}
		// But a tenant's address is no capability: its team gives it out.
		// Without a key, by address, its inboxes are not found; with the
		// API token or the inbox's own token they are.
		h.Expect(h.Do("GET", "/api/mailstore/mailbox/bees/", ""), http.StatusNotFound, `{"success":false,"error":"Mailbox not found"}`)
		h.Expect(h.Do("GET", "/address/latest/?address="+addrC, ""), http.StatusNotFound, `{"error":"Inbox not found"}`)
		for _, as := range [][]string{{"Authorization", "Token " + token}, admin, asB} {
			if r := h.Do("GET", "/address/latest/?address="+addrC, "", as...); r.Status != http.StatusOK {
				t.Errorf("by address with %s: %d %s", as[1][:6], r.Status, r.Body)
			}
		}
	})
}

// A read key reads and makes nothing; a key is refused once revoked, and
// once expired.
func TestKeyScopesRevocationAndExpiry(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tenant := h.NewTenant("scoped", "")
	readKey, readID := h.NewKey(tenant, `["read"]`)
	asRead := []string{"Authorization", "Bearer " + readKey, "Content-Type", "application/json"}
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, `{"error":"this key has no inboxes scope"}`},
		{"POST", "/api/create-temp-email/", `{}`, `{"success":false,"error":"this key has no inboxes scope"}`},
		{"POST", "/inboxes/", ``, `{"error":"this key has no inboxes scope"}`},
		{"DELETE", "/inboxes/ABCDEFGHIJKLMNOPQRSTUVWXYZ/", ``, `{"error":"this key has no inboxes scope"}`},
		{"POST", "/inboxes/ABCDEFGHIJKLMNOPQRSTUVWXYZ/webhooks/", `{"url":"https://example.com/"}`, `{"error":"this key has no webhooks scope"}`},
	} {
		h.Expect(h.Do(c.method, c.path, c.body, asRead...), http.StatusForbidden, c.want)
	}
	if r := h.Do("GET", "/api/domains/", "", asRead...); r.Status != http.StatusOK {
		t.Errorf("a read: %d %s", r.Status, r.Body)
	}
	// Family A also takes the key in Token.
	if r := h.Do("GET", "/api/domains/", "", "Authorization", "Token "+readKey); r.Status != http.StatusOK {
		t.Errorf("the key in Token: %d %s", r.Status, r.Body)
	}

	// Revoked: refused as soon as the revocation is answered.
	h.Expect(h.Do("DELETE", "/api/keys/"+readID+"/", "", admin...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", "/api/domains/", "", asRead...), http.StatusUnauthorized, `{"detail":"Invalid key: unknown, revoked or expired."}`)
	h.Expect(h.Do("GET", "/inboxes/ABCDEFGHIJKLMNOPQRSTUVWXYZ/", "", asRead...), http.StatusUnauthorized,
		`{"error":"Invalid key: unknown, revoked or expired."}`)
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/x/", "", asRead...), http.StatusUnauthorized,
		`{"success":false,"error":"Invalid key: unknown, revoked or expired."}`)

	// Expired: refused from its expiry on.
	expires := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	r := h.Do("POST", "/api/tenants/"+tenant+"/keys/", `{"name":"brief","scopes":["read"],"expires_at":"`+expires+`"}`, admin...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create key: %d %s", r.Status, r.Body)
	}
	brief := r.JSON(t)["key"].(string)
	eventually.True(t, "the key refused after its expiry", func() bool {
		return h.Do("GET", "/api/domains/", "", "Authorization", "Bearer "+brief).Status == http.StatusUnauthorized
	})
	if strings.Contains(brief, readKey) {
		t.Fatal("two keys alike")
	}
}

// Two processes of one service (one NATS): a key revoked through one is
// refused by the other as soon as the revocation is answered.
func TestARevokedKeyIsRefusedByEveryProcess(t *testing.T) {
	t.Parallel()
	proxy := servicetest.ExternalNATS(t)
	shared := func(c *config.Config) { c.NATSURL = proxy.URL() }
	one := apitest.New(t, shared)
	two := apitest.New(t, shared)
	key, id := one.NewKey(one.NewTenant("shared", ""), `["read"]`)
	eventually.True(t, "the other process knows the key", func() bool {
		return two.Do("GET", "/api/domains/", "", "Authorization", "Bearer "+key).Status == http.StatusOK
	})
	one.Expect(one.Do("DELETE", "/api/keys/"+id+"/", "", admin...), http.StatusNoContent, "")
	two.Expect(two.Do("GET", "/api/domains/", "", "Authorization", "Bearer "+key), http.StatusUnauthorized, "")
}

// With --require-token, a tenant's key stands for the API token on
// family A's endpoints, within its scopes and its tenant.
func TestAKeyPassesRequireToken(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.RequireToken = true })
	key, _ := h.NewKey(h.NewTenant("strict", ""), `["inboxes"]`)
	as := []string{"Authorization", "Bearer " + key, "Content-Type", "application/json"}
	h.Expect(h.Do("GET", "/api/domains/", ""), http.StatusUnauthorized, "")
	h.Expect(h.Do("GET", "/api/domains/", "", as...), http.StatusOK, "")
	r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, as...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create with a key: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("GET", "/api/inboxes/"+r.JSON(t)["id"].(string)+"/", "", as...), http.StatusOK, "")
}

// Security never waits on the views: with the partition that applies
// tenants and keys held up (its consumer paused), a key revoked, the keys
// of a tenant deleted and a key past its expiry are refused by every
// process from the moment the 204 is sent; the views show it all once
// the partition goes on.
func TestEndedKeysAreRefusedWhileTheViewsAreHeldUp(t *testing.T) {
	t.Parallel()
	proxy := servicetest.ExternalNATS(t)
	shared := func(c *config.Config) { c.NATSURL = proxy.URL() }
	one := apitest.New(t, shared)
	two := apitest.New(t, shared)
	tenant := one.NewTenant("held", "")
	revoked, revokedID := one.NewKey(tenant, `["read"]`)
	kept, _ := one.NewKey(tenant, `["read"]`)
	doomedTenant := one.NewTenant("doomed", "")
	doomed, _ := one.NewKey(doomedTenant, `["read"]`)
	r := one.Do("POST", "/api/tenants/"+tenant+"/keys/", `{"name":"brief","scopes":["read"],"expires_at":"`+
		time.Now().Add(4*time.Second).UTC().Format(time.RFC3339Nano)+`"}`, admin...)
	if r.Status != http.StatusCreated {
		t.Fatalf("a key that expires: %d %s", r.Status, r.Body)
	}
	brief := r.JSON(t)["key"].(string)
	ok := func(h *apitest.Harness, key string) bool {
		return h.Do("GET", "/api/usage/", "", "Authorization", "Bearer "+key).Status == http.StatusOK
	}
	// (The brief key may expire before the others are known, on a busy
	// machine: it is only checked refused, below.)
	for _, key := range []string{revoked, kept, doomed} {
		eventually.True(t, "both processes know the key", func() bool { return ok(one, key) && ok(two, key) })
	}

	// The sys partition, which applies tenants and keys, held up.
	views := one.Service.Views
	consumer := "views-g" + strconv.Itoa(views.Generation()) + "-sys"
	if _, err := one.Service.Node.JS.PauseConsumer(t.Context(), "EVENTS", consumer, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	one.Expect(one.Do("DELETE", "/api/keys/"+revokedID+"/", "", admin...), http.StatusNoContent, "")
	for _, h := range []*apitest.Harness{one, two} {
		h.Expect(h.Do("GET", "/api/usage/", "", "Authorization", "Bearer "+revoked), http.StatusUnauthorized, "")
	}
	two.Expect(two.Do("DELETE", "/api/tenants/"+doomedTenant+"/", "", admin...), http.StatusNoContent, "")
	for _, h := range []*apitest.Harness{one, two} {
		h.Expect(h.Do("GET", "/api/usage/", "", "Authorization", "Bearer "+doomed), http.StatusUnauthorized, "")
	}
	eventually.True(t, "the brief key refused after its expiry, by both", func() bool { return !ok(one, brief) && !ok(two, brief) })
	if !ok(one, kept) || !ok(two, kept) {
		t.Error("a key neither revoked nor expired is refused")
	}
	// The views were held up all along: they still list the revoked key.
	if r := one.Do("GET", "/api/tenants/"+tenant+"/keys/", "", admin...); !strings.Contains(string(r.Body), revokedID) {
		t.Fatalf("the views applied the revocation: the partition was not held up (%s)", r.Body)
	}

	// Going on, the views show the revocation and the deletion.
	if _, err := one.Service.Node.JS.ResumeConsumer(t.Context(), "EVENTS", consumer); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, "the views drop the revoked key", func() bool {
		r := two.Do("GET", "/api/tenants/"+tenant+"/keys/", "", admin...)
		return r.Status == http.StatusOK && !strings.Contains(string(r.Body), revokedID)
	})
	two.Expect(two.Do("GET", "/api/tenants/"+doomedTenant+"/", "", admin...), http.StatusNotFound, "")
}
