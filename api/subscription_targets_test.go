package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"tempmail/eventually"
	"tempmail/service"
	"tempmail/service/apitest"
	"tempmail/webhooks"
)

// TestWebhookTargetsTLSRedirectsAndPrivate: a receiver with a certificate
// no one trusts, and one that redirects, fail and are logged so; the
// redirect is not followed; private, loopback and link-local targets are
// refused without --webhook-allow-private.
func TestWebhookTargetsTLSRedirectsAndPrivate(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate)
	tlsRC := &receiver{t: t, contract: h.Contract, got: make(chan delivered, 10)}
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(tlsRC.serve))
	t.Cleanup(tlsSrv.Close)
	elsewhere := newReceiver(t, h.Contract)
	redirecting := newReceiver(t, h.Contract)
	redirecting.answerWith(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.srv.URL, http.StatusFound)
	})
	tlsSub := subscribe(h, `{"url":"`+tlsSrv.URL+`"}`)
	redirSub := subscribe(h, `{"url":"`+redirecting.srv.URL+`"}`)
	_, address := h.TokenInbox()
	h.SendMail(address, "Subject: x\r\n\r\nx\r\n")
	redirecting.next()
	eventually.True(t, "both attempts logged", func() bool {
		return len(attempts(h, tlsSub["id"].(string))) > 0 && len(attempts(h, redirSub["id"].(string))) > 0
	})
	if a := attempts(h, tlsSub["id"].(string))[0]; a["status_code"] != 0.0 || !strings.Contains(a["error"].(string), "certificate") {
		t.Errorf("untrusted certificate: %v", a)
	}
	if a := attempts(h, redirSub["id"].(string))[0]; a["status_code"] != 302.0 || !strings.Contains(a["error"].(string), "not followed") {
		t.Errorf("redirect: %v", a)
	}
	// Had the redirect been followed, it would have been within the
	// attempt, which is logged: elsewhere would have its request by now.
	select {
	case d := <-elsewhere.got:
		t.Errorf("the redirect was followed: %s", d.Body)
	default:
	}
	if len(tlsRC.got) != 0 {
		t.Error("a request reached the receiver whose certificate is not trusted")
	}

	strict := shared.Harness(t)
	for _, url := range []string{"http://127.0.0.1:9/", "http://localhost:8080/x", "http://10.1.2.3/", "http://[::1]/",
		"http://169.254.169.254/latest/meta-data/", "http://0.0.0.0/", "http://192.168.1.1/", "https://[fe80::1]/"} {
		t.Run(url, func(t *testing.T) {
			t.Parallel()
			r := strict.As(t).Do("POST", "/api/webhooks/", `{"url":"`+url+`"}`, "Content-Type", apitest.JSONType, "Authorization", "Token "+apitest.TestToken)
			if r.Status != 400 || !strings.Contains(string(r.Body), "may not target private") {
				t.Errorf("%d %s", r.Status, r.Body)
			}
		})
	}
}

// TestWebhookSubscriptionErrors: every bad request gets a clear error in
// its family's shape.
func TestWebhookSubscriptionErrors(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate)
	auth := []string{"Content-Type", apitest.JSONType, "Authorization", "Token " + apitest.TestToken}
	cases := []struct {
		body   string
		status int
		want   string
	}{
		{`{}`, 400, `{"error":"url is required"}`},
		{`{"url":"ftp://example.com/"}`, 400, `{"error":"url must start with http:// or https://"}`},
		{`{"url":"http://user:pw@example.com/"}`, 400, `{"error":"url must not carry credentials: authenticate deliveries by their signature"}`},
		{`{"url":"http:///path"}`, 400, `{"error":"url must name a host"}`},
		{`{"url":"http://example.com:99999/"}`, 400, `{"error":"url has an invalid port"}`},
		{`{"url":"http://example.com/` + strings.Repeat("a", 2100) + `"}`, 400, `{"error":"url must be at most 2048 bytes"}`},
		{`{"url":"http://127.0.0.1/","events":[]}`, 400, ""},
		{`{"url":"http://127.0.0.1/","events":["message.sent"]}`, 400, ""},
		{`{"url":"http://127.0.0.1/","events":"message.received"}`, 400, ""},
		{`{"url":"http://127.0.0.1/","inbox_id":"01a2078d-d682-79b3-ad9e-f71739d913ca"}`, 404, `{"error":"Inbox not found or expired"}`},
		{`{"url":"http://127.0.0.1/","inbox_id":"../x"}`, 404, `{"error":"Inbox not found or expired"}`},
		{`{"url":"http://127.0.0.1/","inbox_id":5}`, 400, `{"error":"inbox_id must be of type string"}`},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%.60s", c.body), func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			r := h.Do("POST", "/api/webhooks/", c.body, auth...)
			h.Expect(r, c.status, c.want)
			if c.want == "" && !strings.Contains(string(r.Body), "message.received, message.read") {
				t.Errorf("%s does not list the events allowed", r.Body)
			}
		})
	}
	h.Expect(h.Do("POST", "/api/webhooks/", `{"url":"http://127.0.0.1/"}`, "Content-Type", apitest.JSONType), 401,
		`{"detail":"Authentication credentials were not provided."}`)
	h.Expect(h.Do("GET", "/api/webhooks/", ""), 401, "")
	h.Expect(h.Do("GET", "/api/webhooks/not-a-uuid/", "", auth...), 404, `{"detail":"Not found."}`)
	h.Expect(h.Do("GET", "/api/webhooks/01a2078d-d682-79b3-ad9e-f71739d913ca/deliveries/", "", auth...), 404, `{"detail":"Not found."}`)
	h.Expect(h.Do("POST", "/inboxes/NOSUCHTOKEN/webhooks/", `{"url":"http://127.0.0.1/"}`), 404, `{"error":"Inbox not found"}`)

	// An inbox holds at most 10; another inbox's token cannot see them.
	token, _ := h.TokenInbox()
	other, _ := h.TokenInbox()
	var ids []string
	for range 10 {
		r := h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1/"}`)
		h.Expect(r, 201, "")
		ids = append(ids, r.JSON(t)["id"].(string))
	}
	r := h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1/"}`)
	if r.Status != 409 || !strings.Contains(string(r.Body), "at most") && !strings.Contains(string(r.Body), "the most") {
		t.Errorf("an 11th: %d %s", r.Status, r.Body)
	}
	var list []map[string]any
	_ = json.Unmarshal(h.Do("GET", "/inboxes/"+token+"/webhooks/", "").Body, &list)
	if len(list) != 10 || list[0]["id"] != ids[0] || list[0]["inbox_id"] == nil {
		t.Errorf("the inbox's list: %v", list)
	}
	h.Expect(h.Do("GET", "/inboxes/"+other+"/webhooks/"+ids[0]+"/", ""), 404, `{"error":"Webhook not found"}`)
	h.Expect(h.Do("DELETE", "/inboxes/"+other+"/webhooks/"+ids[0]+"/", ""), 404, `{"error":"Webhook not found"}`)
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/webhooks/"+ids[0]+"/", ""), 204, "")
	h.Expect(h.Do("GET", "/inboxes/"+token+"/webhooks/"+ids[0]+"/", ""), 404, `{"error":"Webhook not found"}`)
	h.Expect(h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1/"}`), 201, "")

	// The operator sees them by the inbox's id, and lists those to every inbox apart.
	inboxID := h.Do("GET", "/api/webhooks/"+ids[1]+"/", "", auth...).JSON(t)["inbox_id"].(string)
	_ = json.Unmarshal(h.Do("GET", "/api/webhooks/?inbox_id="+inboxID, "", auth...).Body, &list)
	if len(list) != 10 {
		t.Errorf("by inbox_id: %d", len(list))
	}
	h.Expect(h.Do("GET", "/api/webhooks/", "", auth...), 200, `[]`)
}

// failingDNS answers every lookup with its error.
type failingDNS struct{ err error }

func (f failingDNS) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, f.err
}

// TestWebhookSubscriptionToAHostThatDoesNotResolve: a host without an
// address is a bad url (400, in the family's shape); a lookup that fails
// for now is 503 with Retry-After.
func TestWebhookSubscriptionToAHostThatDoesNotResolve(t *testing.T) {
	t.Parallel()
	missing := &net.DNSError{Err: "no such host", Name: "hooks.nowhere.test", IsNotFound: true}
	h := apitest.NewWith(t, service.Options{Webhooks: func(o *webhooks.Options) { o.Resolver = failingDNS{missing} }})
	token, _ := h.TokenInbox()
	h.Expect(h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"https://hooks.nowhere.test/x"}`, "Content-Type", apitest.JSONType),
		400, `{"error":"url host hooks.nowhere.test does not resolve to an address"}`)
	h.Expect(h.Do("POST", "/api/webhooks/", `{"url":"https://hooks.nowhere.test/x"}`, "Content-Type", apitest.JSONType, "Authorization", "Token "+apitest.TestToken),
		400, `{"error":"url host hooks.nowhere.test does not resolve to an address"}`)

	slow := &net.DNSError{Err: "i/o timeout", Name: "hooks.example.com", IsTimeout: true}
	h = apitest.NewWith(t, service.Options{Webhooks: func(o *webhooks.Options) { o.Resolver = failingDNS{slow} }})
	r := h.Do("POST", "/api/webhooks/", `{"url":"https://hooks.example.com/x"}`, "Content-Type", apitest.JSONType, "Authorization", "Token "+apitest.TestToken)
	h.Expect(r, 503, `{"error":"url host hooks.example.com cannot be looked up now (i/o timeout); try again"}`)
	if r.Header.Get("Retry-After") == "" {
		t.Error("a 503 without Retry-After")
	}
}
