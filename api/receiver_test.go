package api_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service/apitest"
)

// receiver is a real loopback HTTP server that takes webhook deliveries
// and answers as the test tells it.
type receiver struct {
	t *testing.T
	// contract checks every delivery against the OpenAPI document's
	// webhooks.delivery, as the harness's client checks every answer.
	contract *apitest.Contract
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

func newReceiver(t *testing.T, c *apitest.Contract) *receiver {
	rc := &receiver{t: t, contract: c, got: make(chan delivered, 1000)}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	d := delivered{Header: r.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, &d.Event)
	if problems := rc.contract.CheckDelivery(r, body); len(problems) > 0 {
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
func subscribe(h *apitest.Harness, body string) map[string]any {
	h.T.Helper()
	r := h.Do("POST", "/api/webhooks/", body, "Content-Type", apitest.JSONType, "Authorization", "Token "+apitest.TestToken)
	if r.Status != http.StatusCreated {
		h.T.Fatalf("POST /api/webhooks/ %s: %d %s", body, r.Status, r.Body)
	}
	return r.JSON(h.T)
}

// attempts reads a subscription's delivery log.
func attempts(h *apitest.Harness, id string) []map[string]any {
	h.T.Helper()
	r := h.Do("GET", "/api/webhooks/"+id+"/deliveries/", "", "Authorization", "Token "+apitest.TestToken)
	if r.Status != 200 {
		h.T.Fatalf("deliveries: %d %s", r.Status, r.Body)
	}
	var out []map[string]any
	if err := json.Unmarshal(r.Body, &out); err != nil {
		h.T.Fatal(err)
	}
	return out
}

func allowPrivate(c *config.Config) { c.WebhookAllowPrivate = true }

// waitNoPendingDeliveries returns once the outbox holds no delivery, due,
// under way or scheduled for a retry (tempmail_webhook_pending_deliveries):
// after it, no attempt is to come of what happened before.
func waitNoPendingDeliveries(h *apitest.Harness) {
	h.T.Helper()
	eventually.Nil(h.T, "no webhook delivery pending", func() error {
		if n := h.Metric("tempmail_webhook_pending_deliveries"); n != 0 {
			return fmt.Errorf("%v pending", n)
		}
		return nil
	})
}
