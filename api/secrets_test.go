package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"tempmail/service/apitest"
	"testing"
)

// TestWebhookSecretIsShownOnceAndRotated: the signing secret is in the
// answer that makes a subscription and in the one that rotates it, never
// in a read or a list; after a rotation, deliveries are signed with the
// new secret alone.
func TestWebhookSecretIsShownOnceAndRotated(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate)
	rc := newReceiver(t, h.Contract)
	auth := []string{"Authorization", "Token " + apitest.TestToken}
	token, address := h.TokenInbox()
	otherToken, _ := h.TokenInbox()

	created := subscribe(h, `{"url":"`+rc.srv.URL+`"}`)
	r := h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"`+rc.srv.URL+`"}`, "Content-Type", apitest.JSONType)
	if r.Status != http.StatusCreated {
		t.Fatalf("inbox subscription: %d %s", r.Status, r.Body)
	}
	own := r.JSON(t)
	for _, sub := range []map[string]any{created, own} {
		if s, _ := sub["secret"].(string); !strings.HasPrefix(s, "whsec_") {
			t.Errorf("a new subscription shows no secret: %v", sub)
		}
	}
	globalID, ownID := created["id"].(string), own["id"].(string)

	noSecret := func(what string, r apitest.Response) {
		t.Helper()
		if r.Status != 200 || strings.Contains(string(r.Body), "secret") || strings.Contains(string(r.Body), "whsec_") {
			t.Errorf("%s shows a secret: %d %s", what, r.Status, r.Body)
		}
	}
	noSecret("GET /api/webhooks/{id}", h.Do("GET", "/api/webhooks/"+globalID+"/", "", auth...))
	noSecret("GET /api/webhooks/{id} of an inbox", h.Do("GET", "/api/webhooks/"+ownID+"/", "", auth...))
	noSecret("GET /api/webhooks/", h.Do("GET", "/api/webhooks/", "", auth...))
	noSecret("GET /api/webhooks/?inbox_id=", h.Do("GET", "/api/webhooks/?inbox_id="+own["inbox_id"].(string), "", auth...))
	noSecret("GET /inboxes/<token>/webhooks/{id}", h.Do("GET", "/inboxes/"+token+"/webhooks/"+ownID+"/", ""))
	noSecret("GET /inboxes/<token>/webhooks/", h.Do("GET", "/inboxes/"+token+"/webhooks/", ""))

	rotate := func(path string, headers ...string) map[string]any {
		t.Helper()
		r := h.Do("POST", path, "", headers...)
		if r.Status != 200 {
			t.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
		}
		return r.JSON(t)
	}
	rotatedGlobal := rotate("/api/webhooks/"+globalID+"/rotate-secret/", auth...)
	rotatedOwn := rotate("/inboxes/"+token+"/webhooks/"+ownID+"/rotate-secret", "Content-Type", apitest.JSONType)
	for _, c := range []struct{ before, after map[string]any }{{created, rotatedGlobal}, {own, rotatedOwn}} {
		s, _ := c.after["secret"].(string)
		if !strings.HasPrefix(s, "whsec_") || s == c.before["secret"] || c.after["id"] != c.before["id"] || c.after["url"] != c.before["url"] {
			t.Errorf("rotated %v into %v", c.before, c.after)
		}
	}
	noSecret("GET after a rotation", h.Do("GET", "/api/webhooks/"+globalID+"/", "", auth...))

	// Deliveries are signed with the new secrets, not the old.
	h.SendMail(address, "Subject: after rotation\r\n\r\nx\r\n")
	for range 2 {
		d := rc.nextOf("message.received")
		newSecret, oldSecret := rotatedGlobal["secret"].(string), created["secret"].(string)
		if strings.HasPrefix(d.Header.Get("webhook-id"), "msg_") && strings.HasSuffix(d.Header.Get("webhook-id"), ownID) {
			newSecret, oldSecret = rotatedOwn["secret"].(string), own["secret"].(string)
		}
		if err := verify(newSecret, d); err != nil {
			t.Errorf("a delivery after rotation: %v", err)
		}
		if verify(oldSecret, d) == nil {
			t.Error("a delivery after rotation verifies with the old secret")
		}
	}

	// Only the subscription's owner rotates it.
	h.Expect(h.Do("POST", "/api/webhooks/"+globalID+"/rotate-secret/", ""), 401, "")
	h.Expect(h.Do("POST", "/inboxes/"+otherToken+"/webhooks/"+ownID+"/rotate-secret/", ""), 404, `{"error":"Webhook not found"}`)
	h.Expect(h.Do("POST", "/inboxes/"+token+"/webhooks/"+globalID+"/rotate-secret/", ""), 404, `{"error":"Webhook not found"}`)
	h.Expect(h.Do("POST", "/api/webhooks/0190a1d8-1b7c-7b51-8a6e-2f1d10c5a1a1/rotate-secret/", "", auth...), 404, `{"detail":"Not found."}`)
	h.Expect(h.Do("POST", "/api/webhooks/"+globalID+"/rotate-secret/", "x", append(auth, "Content-Type", "text/plain")...), 415, "")
	h.Expect(h.Do("DELETE", "/api/webhooks/"+globalID+"/", "", auth...), 204, "")
	h.Expect(h.Do("POST", "/api/webhooks/"+globalID+"/rotate-secret/", "", auth...), 404, `{"detail":"Not found."}`)
	var list []map[string]any
	_ = json.Unmarshal(h.Do("GET", "/inboxes/"+token+"/webhooks/", "").Body, &list)
	if len(list) != 1 {
		t.Errorf("the inbox's subscriptions after all that: %v", list)
	}
}
