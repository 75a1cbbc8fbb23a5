package api_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/projections"
	"tempmail/service"
	"tempmail/webhooks"
)

// receiver is a real loopback HTTP server that takes webhook deliveries
// and answers as the test tells it.
type receiver struct {
	t *testing.T
	// contract checks every delivery against the OpenAPI document's
	// webhooks.delivery, as the harness's client checks every answer.
	contract *contract
	srv      *httptest.Server
	got      chan delivered
	mu       sync.Mutex
	answer   func(w http.ResponseWriter, r *http.Request) // nil: 204
}

// delivered is one request a receiver got.
type delivered struct {
	Header http.Header
	Body   []byte
	Event  struct {
		Type      string         `json:"type"`
		Timestamp string         `json:"timestamp"`
		Data      map[string]any `json:"data"`
	}
}

func newReceiver(t *testing.T, c *contract) *receiver {
	rc := &receiver{t: t, contract: c, got: make(chan delivered, 1000)}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	d := delivered{Header: r.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, &d.Event)
	if problems := rc.contract.checkDelivery(r, body); len(problems) > 0 {
		rc.t.Errorf("a %s delivery that api/openapi.json does not allow: %s\n\t%s", d.Event.Type, body, strings.Join(problems, "\n\t"))
	}
	rc.got <- d
	rc.mu.Lock()
	answer := rc.answer
	rc.mu.Unlock()
	if answer == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	answer(w, r)
}

func (rc *receiver) answerWith(f func(w http.ResponseWriter, r *http.Request)) {
	rc.mu.Lock()
	rc.answer = f
	rc.mu.Unlock()
}

// next returns the next delivery, within 20 s.
func (rc *receiver) next() delivered {
	rc.t.Helper()
	select {
	case d := <-rc.got:
		return d
	case <-time.After(20 * time.Second):
		rc.t.Fatal("no delivery within 20 s")
	}
	return delivered{}
}

// nextOf skips deliveries until one of type kind.
func (rc *receiver) nextOf(kind string) delivered {
	rc.t.Helper()
	for {
		if d := rc.next(); d.Event.Type == kind {
			return d
		}
	}
}

// verify checks a delivery's signature as the Standard Webhooks
// specification describes it, written apart from the service's code: the
// secret's key is the base64 after "whsec_"; the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>"; the header lists
// space-separated "v1,<base64 HMAC-SHA256>" signatures, one of which must
// match; the timestamp must be within five minutes of now.
func verify(secret string, d delivered) error {
	id, ts := d.Header.Get("webhook-id"), d.Header.Get("webhook-timestamp")
	if id == "" || ts == "" {
		return fmt.Errorf("missing webhook-id or webhook-timestamp: %v", d.Header)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return fmt.Errorf("bad timestamp %q", ts)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		return fmt.Errorf("secret %q is not whsec_<base64>", secret)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", id, ts, d.Body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(d.Header.Get("webhook-signature")) {
		version, value, _ := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(value)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return fmt.Errorf("no valid signature in %q", d.Header.Get("webhook-signature"))
}

// subscribe makes a subscription to every inbox with the operator's token.
func (h *harness) subscribe(body string) map[string]any {
	h.t.Helper()
	r := h.do("POST", "/api/webhooks/", body, "Content-Type", jsonCT, "Authorization", "Token "+testToken)
	if r.Status != http.StatusCreated {
		h.t.Fatalf("POST /api/webhooks/ %s: %d %s", body, r.Status, r.Body)
	}
	return r.JSON(h.t)
}

// attempts reads a subscription's delivery log.
func (h *harness) attempts(id string) []map[string]any {
	h.t.Helper()
	r := h.do("GET", "/api/webhooks/"+id+"/deliveries/", "", "Authorization", "Token "+testToken)
	if r.Status != 200 {
		h.t.Fatalf("deliveries: %d %s", r.Status, r.Body)
	}
	var out []map[string]any
	if err := json.Unmarshal(r.Body, &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

func allowPrivate(c *config.Config) { c.WebhookAllowPrivate = true }

// waitNoPendingDeliveries returns once the outbox holds no delivery, due,
// under way or scheduled for a retry (tempmail_webhook_pending_deliveries):
// after it, no attempt is to come of what happened before.
func (h *harness) waitNoPendingDeliveries() {
	h.t.Helper()
	eventually.Nil(h.t, "no webhook delivery pending", func() error {
		if n := h.metric("tempmail_webhook_pending_deliveries"); n != 0 {
			return fmt.Errorf("%v pending", n)
		}
		return nil
	})
}

// TestWebhooksDeliverEveryKindSigned: mail over SMTP, a read, a deletion and
// the inbox's end reach the operator's subscription to every inbox and the
// inbox owner's own, each signed as the Standard Webhooks specification
// says, with family A's summary of a new message and no token.
func TestWebhooksDeliverEveryKindSigned(t *testing.T) {
	t.Parallel()
	h := newHarness(t, allowPrivate)
	all, own := newReceiver(t, h.contract), newReceiver(t, h.contract)
	global := h.subscribe(`{"url":"` + all.srv.URL + `/hook","events":["message.received","message.read","message.deleted","inbox.deleted","inbox.expired"]}`)
	if global["inbox_id"] != nil || global["failing"] != false || !strings.HasPrefix(global["secret"].(string), "whsec_") {
		t.Errorf("created: %v", global)
	}
	token, address := h.tokenInbox()
	r := h.do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"`+own.srv.URL+`","events":["message.received","inbox.deleted"]}`, "Content-Type", jsonCT)
	if r.Status != http.StatusCreated {
		t.Fatalf("inbox subscription: %d %s", r.Status, r.Body)
	}
	mine := r.JSON(t)
	inbox := h.do("GET", "/inboxes/"+token+"/", "").JSON(t)
	_ = inbox

	h.sendMail(address, "From: Shop <shop@example.com>\r\nSubject: Your code\r\n\r\nYour code is 482913.\r\n")
	for _, c := range []struct {
		rc     *receiver
		secret string
	}{{all, global["secret"].(string)}, {own, mine["secret"].(string)}} {
		d := c.rc.nextOf("message.received")
		if err := verify(c.secret, d); err != nil {
			t.Errorf("signature: %v", err)
		}
		data := d.Event.Data
		if data["subject"] != "Your code" || data["from_email"] != "shop@example.com" || data["from_name"] != "Shop" ||
			data["address"] != address || data["preview"] != "Your code is 482913." || data["inbox_id"] == "" || data["id"] == "" {
			t.Errorf("message.received data: %s", d.Body)
		}
		if _, err := time.Parse(time.RFC3339, d.Event.Timestamp); err != nil {
			t.Errorf("timestamp %q", d.Event.Timestamp)
		}
		if strings.Contains(string(d.Body), token) || strings.Contains(string(d.Body), testToken) {
			t.Errorf("a delivery carries a token: %s", d.Body)
		}
		if d.Header.Get("Content-Type") != "application/json" {
			t.Errorf("content type %q", d.Header.Get("Content-Type"))
		}
	}
	id := h.messageIDBySubject(token, "Your+code")
	h.expect(h.do("POST", "/inboxes/"+token+"/messages/"+id+"/read/", "{}"), 200, "")
	if d := all.nextOf("message.read"); d.Event.Data["id"] != id || d.Event.Data["address"] != address {
		t.Errorf("message.read: %s", d.Body)
	}
	h.expect(h.do("DELETE", "/inboxes/"+token+"/messages/"+id+"/", ""), 204, "")
	if d := all.nextOf("message.deleted"); d.Event.Data["id"] != id {
		t.Errorf("message.deleted: %s", d.Body)
	}

	// The inbox's end reaches its own subscription too, which then ends.
	h.expect(h.do("DELETE", "/inboxes/"+token+"/", ""), 204, "")
	for _, rc := range []*receiver{all, own} {
		if d := rc.nextOf("inbox.deleted"); d.Event.Data["address"] != address {
			t.Errorf("inbox.deleted: %s", d.Body)
		}
	}
	h.expect(h.do("GET", "/api/webhooks/"+mine["id"].(string)+"/", "", "Authorization", "Token "+testToken), 404, `{"detail":"Not found."}`)

	// The attempt is recorded once its answer is in, a moment after the
	// receiver saw it.
	var log []map[string]any
	eventually.Nil(t, "4 attempts in the log", func() error {
		if log = h.attempts(global["id"].(string)); len(log) != 4 {
			return fmt.Errorf("the log holds %d attempts: %v", len(log), log)
		}
		return nil
	})
	if log[0]["event_type"] != "inbox.deleted" || log[3]["event_type"] != "message.received" ||
		log[0]["status_code"] != 204.0 || log[0]["error"] != "" || log[0]["attempt"] != 1.0 {
		t.Errorf("log, newest first: %v", log)
	}
}

// TestWebhookRetriesOnScheduleThenGivesUp: a receiver that fails gets the
// same delivery (same webhook-id) again on the retry schedule, then it is
// given up, logged, and the subscription shows as failing until a delivery
// succeeds.
func TestWebhookRetriesOnScheduleThenGivesUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t, allowPrivate, func(c *config.Config) {
		c.WebhookRetrySchedule = []time.Duration{time.Second, time.Second}
	})
	rc := newReceiver(t, h.contract)
	rc.answerWith(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, strings.Repeat("busy ", 1000), http.StatusInternalServerError)
	})
	sub := h.subscribe(`{"url":"` + rc.srv.URL + `"}`)
	id := sub["id"].(string)
	token, address := h.tokenInbox()
	_ = token
	h.sendMail(address, "Subject: retried\r\n\r\nx\r\n")
	first := rc.next()
	var when []time.Time
	when = append(when, time.Now())
	for range 2 {
		d := rc.next()
		when = append(when, time.Now())
		if d.Header.Get("webhook-id") != first.Header.Get("webhook-id") {
			t.Errorf("a retry has webhook-id %q, the first %q", d.Header.Get("webhook-id"), first.Header.Get("webhook-id"))
		}
		if err := verify(sub["secret"].(string), d); err != nil {
			t.Error(err)
		}
	}
	if gap := when[1].Sub(when[0]); gap < 900*time.Millisecond {
		t.Errorf("a retry came %v after the failure, before the schedule's 1 s", gap)
	}
	var log []map[string]any
	eventually.True(t, "the delivery given up", func() bool {
		log = h.attempts(id)
		return len(log) == 3 && log[0]["gave_up"] == true
	})
	for i, a := range log {
		if a["status_code"] != 500.0 || a["attempt"] != float64(3-i) || !strings.Contains(a["error"].(string), "500") {
			t.Errorf("attempt %d: %v", i, a)
		}
		if resp := a["response"].(string); resp != "" {
			t.Errorf("the log keeps %d bytes of a refusal's answer, want none: the log must not show what any server says", len(resp))
		}
	}
	got := h.do("GET", "/api/webhooks/"+id+"/", "", "Authorization", "Token "+testToken).JSON(t)
	if got["failing"] != true || got["failing_since"] == nil {
		t.Errorf("after giving up: %v", got)
	}
	// Nothing more is to come of it: once the outbox holds no delivery,
	// no retry is scheduled, and a fourth attempt would have been made
	// already.
	h.waitNoPendingDeliveries()
	select {
	case d := <-rc.got:
		t.Errorf("a fourth attempt: %s", d.Header.Get("webhook-id"))
	default:
	}

	// A success clears it, and its answer's start is kept.
	rc.answerWith(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, strings.Repeat("fine ", 1000)) })
	h.sendMail(address, "Subject: fine now\r\n\r\nx\r\n")
	rc.next()
	eventually.True(t, "failing cleared", func() bool {
		return h.do("GET", "/api/webhooks/"+id+"/", "", "Authorization", "Token "+testToken).JSON(t)["failing"] == false
	})
	if resp := h.attempts(id)[0]["response"].(string); len(resp) != 1024 || !strings.HasPrefix(resp, "fine") {
		t.Errorf("the log keeps %d bytes of a success's answer, want 1 KiB", len(resp))
	}
}

// TestWebhookReceiverDownThenUp: deliveries to a receiver that refuses
// connections are retried, and arrive once it is back.
func TestWebhookReceiverDownThenUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t, allowPrivate, func(c *config.Config) {
		c.WebhookRetrySchedule = []time.Duration{time.Second, time.Second, time.Second, time.Second}
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // down
	sub := h.subscribe(`{"url":"http://` + addr + `/"}`)
	_, address := h.tokenInbox()
	h.sendMail(address, "Subject: while down\r\n\r\nx\r\n")
	eventually.True(t, "a refused attempt logged", func() bool {
		log := h.attempts(sub["id"].(string))
		return len(log) > 0 && log[0]["status_code"] == 0.0 && strings.Contains(log[0]["error"].(string), "refused")
	})
	rc := &receiver{t: t, contract: h.contract, got: make(chan delivered, 10)}
	if l, err = net.Listen("tcp", addr); err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(rc.serve)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	if d := rc.nextOf("message.received"); d.Event.Data["subject"] != "while down" {
		t.Errorf("after coming back: %s", d.Body)
	}
}

// TestWebhookAttemptsAreBoundedInTime: a receiver that never answers is
// given up on after the attempt's time, and the log says so.
func TestWebhookAttemptsAreBoundedInTime(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, service.Options{Webhooks: func(o *webhooks.Options) { o.AttemptTimeout = 300 * time.Millisecond }}, allowPrivate,
		func(c *config.Config) { c.WebhookRetrySchedule = nil })
	rc := newReceiver(t, h.contract)
	rc.answerWith(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	sub := h.subscribe(`{"url":"` + rc.srv.URL + `"}`)
	_, address := h.tokenInbox()
	h.sendMail(address, "Subject: unanswered\r\n\r\nx\r\n")
	eventually.True(t, "the attempt given up", func() bool {
		log := h.attempts(sub["id"].(string))
		return len(log) == 1 && log[0]["gave_up"] == true
	})
	a := h.attempts(sub["id"].(string))[0]
	if a["error"] != "no answer within 300ms" || a["status_code"] != 0.0 || a["duration_ms"].(float64) < 300 || a["duration_ms"].(float64) > 5000 {
		t.Errorf("an unanswered attempt: %v", a)
	}
}

// TestSlowReceiverDelaysNoOtherSubscription: while one receiver holds every
// delivery it gets, another subscription's deliveries all arrive.
func TestSlowReceiverDelaysNoOtherSubscription(t *testing.T) {
	t.Parallel()
	h := newHarness(t, allowPrivate)
	slow, fast := newReceiver(t, h.contract), newReceiver(t, h.contract)
	release := make(chan struct{})
	slow.answerWith(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	h.subscribe(`{"url":"` + slow.srv.URL + `"}`)
	h.subscribe(`{"url":"` + fast.srv.URL + `"}`)
	_, address := h.tokenInbox()
	const n = 30
	for i := range n {
		h.sendMail(address, fmt.Sprintf("Subject: m%d\r\n\r\nx\r\n", i))
	}
	seen := map[string]bool{}
	for len(seen) < n {
		seen[fast.next().Event.Data["subject"].(string)] = true
	}
	// The slow one holds at most its lane's share of attempts at once.
	if held := len(slow.got); held > 4 {
		t.Errorf("the slow receiver got %d deliveries at once, more than its lane's 4", held)
	}
	close(release)
	for got := map[string]bool{}; len(got) < n; {
		got[slow.next().Event.Data["subject"].(string)] = true
	}
}

// TestWebhookTargetsTLSRedirectsAndPrivate: a receiver with a certificate
// no one trusts, and one that redirects, fail and are logged so; the
// redirect is not followed; private, loopback and link-local targets are
// refused without --webhook-allow-private.
func TestWebhookTargetsTLSRedirectsAndPrivate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, allowPrivate)
	tlsRC := &receiver{t: t, contract: h.contract, got: make(chan delivered, 10)}
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(tlsRC.serve))
	t.Cleanup(tlsSrv.Close)
	elsewhere := newReceiver(t, h.contract)
	redirecting := newReceiver(t, h.contract)
	redirecting.answerWith(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.srv.URL, http.StatusFound)
	})
	tlsSub := h.subscribe(`{"url":"` + tlsSrv.URL + `"}`)
	redirSub := h.subscribe(`{"url":"` + redirecting.srv.URL + `"}`)
	_, address := h.tokenInbox()
	h.sendMail(address, "Subject: x\r\n\r\nx\r\n")
	redirecting.next()
	eventually.True(t, "both attempts logged", func() bool {
		return len(h.attempts(tlsSub["id"].(string))) > 0 && len(h.attempts(redirSub["id"].(string))) > 0
	})
	if a := h.attempts(tlsSub["id"].(string))[0]; a["status_code"] != 0.0 || !strings.Contains(a["error"].(string), "certificate") {
		t.Errorf("untrusted certificate: %v", a)
	}
	if a := h.attempts(redirSub["id"].(string))[0]; a["status_code"] != 302.0 || !strings.Contains(a["error"].(string), "not followed") {
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

	strict := newHarness(t)
	for _, url := range []string{"http://127.0.0.1:9/", "http://localhost:8080/x", "http://10.1.2.3/", "http://[::1]/",
		"http://169.254.169.254/latest/meta-data/", "http://0.0.0.0/", "http://192.168.1.1/", "https://[fe80::1]/"} {
		t.Run(url, func(t *testing.T) {
			t.Parallel()
			r := strict.as(t).do("POST", "/api/webhooks/", `{"url":"`+url+`"}`, "Content-Type", jsonCT, "Authorization", "Token "+testToken)
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
	h := newHarness(t, allowPrivate)
	auth := []string{"Content-Type", jsonCT, "Authorization", "Token " + testToken}
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
			h := h.as(t)
			r := h.do("POST", "/api/webhooks/", c.body, auth...)
			h.expect(r, c.status, c.want)
			if c.want == "" && !strings.Contains(string(r.Body), "message.received, message.read") {
				t.Errorf("%s does not list the events allowed", r.Body)
			}
		})
	}
	h.expect(h.do("POST", "/api/webhooks/", `{"url":"http://127.0.0.1/"}`, "Content-Type", jsonCT), 401,
		`{"detail":"Authentication credentials were not provided."}`)
	h.expect(h.do("GET", "/api/webhooks/", ""), 401, "")
	h.expect(h.do("GET", "/api/webhooks/not-a-uuid/", "", auth...), 404, `{"detail":"Not found."}`)
	h.expect(h.do("GET", "/api/webhooks/01a2078d-d682-79b3-ad9e-f71739d913ca/deliveries/", "", auth...), 404, `{"detail":"Not found."}`)
	h.expect(h.do("POST", "/inboxes/NOSUCHTOKEN/webhooks/", `{"url":"http://127.0.0.1/"}`), 404, `{"error":"Inbox not found"}`)

	// An inbox holds at most 10; another inbox's token cannot see them.
	token, _ := h.tokenInbox()
	other, _ := h.tokenInbox()
	var ids []string
	for range 10 {
		r := h.do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1/"}`)
		h.expect(r, 201, "")
		ids = append(ids, r.JSON(t)["id"].(string))
	}
	r := h.do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1/"}`)
	if r.Status != 409 || !strings.Contains(string(r.Body), "at most") && !strings.Contains(string(r.Body), "the most") {
		t.Errorf("an 11th: %d %s", r.Status, r.Body)
	}
	var list []map[string]any
	_ = json.Unmarshal(h.do("GET", "/inboxes/"+token+"/webhooks/", "").Body, &list)
	if len(list) != 10 || list[0]["id"] != ids[0] || list[0]["inbox_id"] == nil {
		t.Errorf("the inbox's list: %v", list)
	}
	h.expect(h.do("GET", "/inboxes/"+other+"/webhooks/"+ids[0]+"/", ""), 404, `{"error":"Webhook not found"}`)
	h.expect(h.do("DELETE", "/inboxes/"+other+"/webhooks/"+ids[0]+"/", ""), 404, `{"error":"Webhook not found"}`)
	h.expect(h.do("DELETE", "/inboxes/"+token+"/webhooks/"+ids[0]+"/", ""), 204, "")
	h.expect(h.do("GET", "/inboxes/"+token+"/webhooks/"+ids[0]+"/", ""), 404, `{"error":"Webhook not found"}`)
	h.expect(h.do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1/"}`), 201, "")

	// The operator sees them by the inbox's id, and lists those to every inbox apart.
	inboxID := h.do("GET", "/api/webhooks/"+ids[1]+"/", "", auth...).JSON(t)["inbox_id"].(string)
	_ = json.Unmarshal(h.do("GET", "/api/webhooks/?inbox_id="+inboxID, "", auth...).Body, &list)
	if len(list) != 10 {
		t.Errorf("by inbox_id: %d", len(list))
	}
	h.expect(h.do("GET", "/api/webhooks/", "", auth...), 200, `[]`)
}

// TestWebhookPayloadsOfEveryKind: a message deleted between its delivery's
// attempts is delivered with its own ids, received_at and size and nothing
// of what it said; a person's deletion carries an empty reason, an
// eviction "cap"; an inbox's expiry is told. Each is checked against the
// document by the receiver.
func TestWebhookPayloadsOfEveryKind(t *testing.T) {
	t.Parallel()
	h := newHarness(t, allowPrivate, func(c *config.Config) {
		c.WebhookRetrySchedule = []time.Duration{time.Second}
		c.MinInboxTTL = time.Second
		c.MaxMessagesPerInbox = 2
	})
	rc := newReceiver(t, h.contract)
	deleted := make(chan struct{})
	var first sync.Once
	rc.answerWith(func(w http.ResponseWriter, r *http.Request) {
		held := false
		first.Do(func() { held = true })
		if held {
			// The first delivery, of the first message, fails once the
			// message is gone, so that its retry finds it deleted.
			<-deleted
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	h.subscribe(`{"url":"` + rc.srv.URL + `","events":["message.received","message.deleted","inbox.expired"]}`)
	token, address := h.tokenInbox()
	var pending []delivered
	// await returns the first delivery, got before or after, that matches.
	await := func(what string, match func(d delivered) bool) delivered {
		t.Helper()
		for i, d := range pending {
			if match(d) {
				pending = append(pending[:i], pending[i+1:]...)
				return d
			}
		}
		deadline := time.After(20 * time.Second)
		for {
			select {
			case d := <-rc.got:
				if match(d) {
					return d
				}
				pending = append(pending, d)
			case <-deadline:
				t.Fatalf("no %s within 20 s; got %d others", what, len(pending))
			}
		}
	}
	is := func(kind, key, value string) func(d delivered) bool {
		return func(d delivered) bool { return d.Event.Type == kind && d.Event.Data[key] == value }
	}

	h.sendMail(address, "From: Shop <shop@example.com>\r\nSubject: gone soon\r\n\r\nWhat it said.\r\n")
	msg := h.waitLatest(token, "")
	id := msg["id"].(string)
	attempt := await("first attempt", is("message.received", "id", id))
	if attempt.Event.Data["subject"] != "gone soon" {
		t.Errorf("the first attempt: %s", attempt.Body)
	}
	h.expect(h.do("DELETE", "/inboxes/"+token+"/messages/"+id+"/", ""), 204, "")
	close(deleted)
	if d := await("the deletion", is("message.deleted", "id", id)); d.Event.Data["reason"] != "" {
		t.Errorf("a person's deletion: %s", d.Body)
	}
	retry := await("the retry", func(d delivered) bool {
		return is("message.received", "id", id)(d) && d.Header.Get("webhook-id") == attempt.Header.Get("webhook-id")
	})
	want := map[string]any{"id": id, "inbox_id": attempt.Event.Data["inbox_id"], "address": address,
		"received_at": msg["received_at"], "size": msg["size"]}
	if !reflect.DeepEqual(retry.Event.Data, want) {
		t.Errorf("the retry of a deleted message:\n got %v\nwant %v", retry.Event.Data, want)
	}

	// Beyond the cap of 2, the oldest goes (each seen before the next, as
	// the eviction goes by the count the views show).
	after := ""
	for i := range 3 {
		h.sendMail(address, fmt.Sprintf("Subject: m%d\r\n\r\nx\r\n", i))
		after = h.waitLatest(token, after)["id"].(string)
	}
	await("an eviction", func(d delivered) bool { return d.Event.Type == "message.deleted" && d.Event.Data["reason"] == "cap" })

	a := h.createInboxA(`{"domain_id":1,"ttl":1}`)
	await("the expiry", is("inbox.expired", "inbox_id", a["id"].(string)))
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
	h := newHarnessWith(t, service.Options{Webhooks: func(o *webhooks.Options) { o.Resolver = failingDNS{missing} }})
	token, _ := h.tokenInbox()
	h.expect(h.do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"https://hooks.nowhere.test/x"}`, "Content-Type", jsonCT),
		400, `{"error":"url host hooks.nowhere.test does not resolve to an address"}`)
	h.expect(h.do("POST", "/api/webhooks/", `{"url":"https://hooks.nowhere.test/x"}`, "Content-Type", jsonCT, "Authorization", "Token "+testToken),
		400, `{"error":"url host hooks.nowhere.test does not resolve to an address"}`)

	slow := &net.DNSError{Err: "i/o timeout", Name: "hooks.example.com", IsTimeout: true}
	h = newHarnessWith(t, service.Options{Webhooks: func(o *webhooks.Options) { o.Resolver = failingDNS{slow} }})
	r := h.do("POST", "/api/webhooks/", `{"url":"https://hooks.example.com/x"}`, "Content-Type", jsonCT, "Authorization", "Token "+testToken)
	h.expect(r, 503, `{"error":"url host hooks.example.com cannot be looked up now (i/o timeout); try again"}`)
	if r.Header.Get("Retry-After") == "" {
		t.Error("a 503 without Retry-After")
	}
}

// TestSubscriptionCapsHoldUnderRaces: forty subscriptions to one inbox at
// once, each on a connection of its own opened beforehand, leave at most
// the cap; the rest are refused with 409, none half made. The same for
// subscriptions to every inbox, beyond theirs.
func TestSubscriptionCapsHoldUnderRaces(t *testing.T) {
	t.Parallel()
	h := newHarness(t, allowPrivate, func(c *config.Config) { c.CreateRatePerClient = config.Rate{} })
	token, _ := h.tokenInbox()
	race := func(n int, path string, headers ...string) (created, refused int) {
		t.Helper()
		clients := make([]*http.Client, n)
		for i := range clients {
			// A connection each, opened before the race starts.
			clients[i] = h.clientVia(&http.Transport{}, 30*time.Second)
			h.expect(h.doWith(clients[i], "GET", "/livez", ""), http.StatusOK, "")
		}
		start := make(chan struct{})
		codes := make(chan int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				r := h.doWith(clients[i], "POST", path, `{"url":"http://127.0.0.1:9/`+strconv.Itoa(i)+`"}`, headers...)
				codes <- r.Status
			})
		}
		close(start)
		wg.Wait()
		close(codes)
		for c := range codes {
			switch c {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
				refused++
			default:
				t.Errorf("a racing subscription was answered %d", c)
			}
		}
		return created, refused
	}
	created, refused := race(40, "/inboxes/"+token+"/webhooks/")
	r := h.do("GET", "/inboxes/"+token+"/webhooks/", "")
	var list []any
	_ = json.Unmarshal(r.Body, &list)
	if created > projections.MaxInboxWebhooks || created+refused != 40 || len(list) != created {
		t.Errorf("40 racing subscriptions to one inbox: %d created, %d refused, %d listed; want at most %d", created, refused, len(list), projections.MaxInboxWebhooks)
	}
	for range projections.MaxGlobalWebhooks - 20 {
		h.subscribe(`{"url":"http://127.0.0.1:9/"}`)
	}
	created, refused = race(40, "/api/webhooks/", "Authorization", "Token "+testToken, "Content-Type", "application/json")
	if created > 20 || created+refused != 40 {
		t.Errorf("40 racing subscriptions to every inbox with 20 places left: %d created, %d refused", created, refused)
	}
}
