package api_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"tempmail/config"
	"tempmail/mailauth/authtest"
	"tempmail/mailbox"
	"tempmail/service/apitest"
)

// authChecks turns the checks on, asking dns.
func authChecks(dns *authtest.DNS) func(*config.Config) {
	return func(c *config.Config) { c.AuthChecks, c.DNSResolver = true, dns.Addr }
}

// authOf reads the authentication object of a JSON answer.
func authOf(t *testing.T, body []byte) *mailbox.Auth {
	t.Helper()
	var v struct {
		Authentication *mailbox.Auth `json:"authentication"`
		Data           struct {
			Authentication *mailbox.Auth `json:"authentication"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if v.Authentication == nil {
		return v.Data.Authentication
	}
	return v.Authentication
}

// What the checks said shows in every family's message detail and in the
// message.received webhook, the same everywhere (and as the OpenAPI
// document says: the harness checks every answer against it).
func TestAuthenticationInEveryFamilyAndWebhook(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	dns.TXT("sender.test", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject")
	key := authtest.NewKey(t, "sender.test", "sel")
	key.Publish(dns)
	h := apitest.New(t, authChecks(dns), allowPrivate)
	rc := newReceiver(t, h.Contract)
	subscribe(h, `{"url":"`+rc.srv.URL+`","events":["message.received"]}`)
	b := h.Do("POST", "/api/create-temp-email/", `{"email_name":"checked"}`, "Content-Type", apitest.JSONType)
	h.Expect(b, http.StatusCreated, "")
	token, addr := b.JSON(t)["token"].(string), b.JSON(t)["email"].(string)

	h.SendMailFrom("bounce@sender.test", addr, key.Sign(t, "From: Shop <shop@sender.test>\r\nTo: "+addr+
		"\r\nSubject: signed\r\nDate: Sat, 21 Nov 2026 19:00:00 +0000\r\nMessage-ID: <a1@sender.test>\r\n\r\nYour code is 424242.\r\n"))
	id := h.WaitLatest(token, "")["id"].(string)
	want := &mailbox.Auth{SPF: mailbox.SPF{Result: "pass", Domain: "sender.test"},
		DKIM:  []mailbox.DKIM{{Result: "pass", Domain: "sender.test", Selector: "sel"}},
		DMARC: mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"}}
	for _, path := range []string{"/api/emails/" + id + "/", "/api/mailstore/mailbox/checked/" + id + ".eml/",
		"/inboxes/" + token + "/messages/" + id + "/", "/inboxes/" + token + "/latest/"} {
		r := h.Do("GET", path, "")
		if got := authOf(t, r.Body); r.Status != 200 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d %+v, want %+v", path, r.Status, got, want)
		}
	}
	if d := rc.nextOf("message.received"); !reflect.DeepEqual(authOf(t, d.Body), want) {
		t.Errorf("message.received: %s", d.Body)
	}
}

// A message that was not checked (checks off, or stored before they were
// made) shows authentication as null, in every family and the webhook.
func TestAuthenticationIsNullWhenNotChecked(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate)
	rc := newReceiver(t, h.Contract)
	subscribe(h, `{"url":"`+rc.srv.URL+`","events":["message.received"]}`)
	b := h.Do("POST", "/api/create-temp-email/", `{"email_name":"unchecked"}`, "Content-Type", apitest.JSONType)
	h.Expect(b, http.StatusCreated, "")
	token, addr := b.JSON(t)["token"].(string), b.JSON(t)["email"].(string)
	h.SendMail(addr, "From: shop@sender.test\r\nSubject: s\r\n\r\nbody\r\n")
	id := h.WaitLatest(token, "")["id"].(string)
	for _, path := range []string{"/api/emails/" + id + "/", "/api/mailstore/mailbox/unchecked/" + id + ".eml/",
		"/inboxes/" + token + "/messages/" + id + "/"} {
		r := h.Do("GET", path, "")
		var v map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &v); err != nil || string(v["authentication"]) != "null" {
			t.Errorf("%s: %s", path, r.Body)
		}
	}
	var d struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(rc.nextOf("message.received").Body, &d); err != nil || string(d.Data["authentication"]) != "null" {
		t.Errorf("message.received: %s", d.Data)
	}
}
