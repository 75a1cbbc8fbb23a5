package webhooks_test

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

	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/command"
	"tempmail/config"
	"tempmail/eventually"
	"tempmail/projections"
	"tempmail/webhooks"
)

// The deliverer is tried as it runs in `tempmail serve`: a back end built
// by backendtest, events made by its commands and by mail, and real HTTP
// receivers on loopback. What a receiver gets, the delivery log
// (Webhooks.Attempts, Webhooks.State) and the metrics are what is looked
// at. api's tests try the same through the HTTP API, end to end: every
// kind's payload, the first attempts' signatures, a retry schedule of
// equal waits and giving up, a receiver down then up, a slow receiver
// beside a fast one, redirects and TLS, subscription caps; these try what
// is the deliverer's own.

// start runs a back end whose webhooks may target loopback, with cfg's
// other fields as backendtest's, refined by each of with; refine, when not
// nil, refines the deliverer's options.
func start(t *testing.T, refine func(*webhooks.Options), with ...func(*config.Config)) *backend.Backend {
	t.Helper()
	cfg := backendtest.Config(t)
	cfg.WebhookAllowPrivate = true
	for _, w := range with {
		w(&cfg)
	}
	return backendtest.StartWith(t, cfg, backend.Options{Webhooks: refine})
}

// schedule sets the retry schedule.
func schedule(waits ...time.Duration) func(*config.Config) {
	return func(c *config.Config) { c.WebhookRetrySchedule = waits }
}

// subscribe makes a subscription of svc to url for kinds (message.received
// when none), to every inbox or, when in is not nil, to in.
func subscribe(t *testing.T, svc *backend.Backend, url string, in *projections.Inbox, kinds ...string) *projections.Webhook {
	t.Helper()
	if len(kinds) == 0 {
		kinds = []string{"message.received"}
	}
	sub := command.Subscription{URL: url, Events: kinds}
	if in != nil {
		inbox, err := svc.Views.InboxByToken(t.Context(), in.Token) // as it is now
		if err != nil {
			t.Fatal(err)
		}
		sub.Inbox = inbox
	}
	h, err := svc.Commands.Subscribe(t.Context(), sub)
	if err != nil {
		t.Fatalf("subscribe %s: %v", url, err)
	}
	return h
}

// hit is a request a receiver got.
type hit struct {
	at     time.Time
	header http.Header
	body   []byte
	event  struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
}

// id is the delivery's webhook-id.
func (h hit) id() string { return h.header.Get("webhook-id") }

// receiver is a loopback HTTP server that takes deliveries, answering
// each as answer says (204 when answer is nil); n counts from 1.
type receiver struct {
	*httptest.Server
	got    chan hit
	answer func(n int, w http.ResponseWriter, r *http.Request)

	mu                 sync.Mutex
	n, inFlight, maxIn int
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{got: make(chan hit, 1000), answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	h := hit{at: time.Now(), header: r.Header.Clone()}
	h.body, _ = io.ReadAll(r.Body)
	_ = json.Unmarshal(h.body, &h.event)
	rc.mu.Lock()
	rc.n++
	n := rc.n
	rc.inFlight++
	rc.maxIn = max(rc.maxIn, rc.inFlight)
	rc.mu.Unlock()
	defer func() {
		rc.mu.Lock()
		rc.inFlight--
		rc.mu.Unlock()
	}()
	rc.got <- h
	if rc.answer == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	rc.answer(n, w, r)
}

// most is the most requests the receiver has held at once.
func (rc *receiver) most() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.maxIn
}

// take returns the next n requests, failing the test when they do not
// come within eventually.Timeout.
func (rc *receiver) take(t *testing.T, n int) []hit {
	t.Helper()
	var out []hit
	deadline := time.NewTimer(eventually.Timeout)
	defer deadline.Stop()
	for len(out) < n {
		select {
		case h := <-rc.got:
			out = append(out, h)
		case <-deadline.C:
			t.Fatalf("%d of %d requests came within %v", len(out), n, eventually.Timeout)
		}
	}
	return out
}

// verify checks a delivery's signature as a receiver following the
// Standard Webhooks specification does, written apart from the
// service's code: the signed content is "<webhook-id>.<webhook-timestamp>.
// <body>", keyed with the bytes whose base64 follows "whsec_" in the
// secret; one of the space-separated "v1,<base64 HMAC-SHA256>" of
// webhook-signature must match, and the timestamp must be within five
// minutes of now.
func verify(secret string, h hit) error {
	id, ts := h.header.Get("webhook-id"), h.header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return fmt.Errorf("webhook-id %q, webhook-timestamp %q", id, ts)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		return fmt.Errorf("secret %q is not whsec_<base64>", secret)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", id, ts, h.body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.header.Get("webhook-signature")) {
		version, value, _ := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(value)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return fmt.Errorf("no signature in %q verifies", h.header.Get("webhook-signature"))
}

// outcome is how many attempts the metrics (what /metrics shows) count
// with outcome.
func outcome(t *testing.T, svc *backend.Backend, outcome string) float64 {
	t.Helper()
	n, _ := backendtest.Metric(t, svc, "tempmail_webhook_deliveries_total", `outcome="`+outcome+`"`)
	return n
}

// settled waits until svc's outbox holds no delivery, due, under way or
// scheduled for a retry: after it, nothing more is to come of what
// happened before.
func settled(t *testing.T, svc *backend.Backend) {
	t.Helper()
	eventually.Nil(t, "no delivery pending", func() error {
		n, ok := backendtest.Metric(t, svc, "tempmail_webhook_pending_deliveries")
		if !ok || n != 0 {
			return fmt.Errorf("%v pending", n)
		}
		return nil
	})
}

// attempts reads a subscription's delivery log, newest first.
func attempts(t *testing.T, svc *backend.Backend, webhook string) []webhooks.Attempt {
	t.Helper()
	log, err := svc.Hooks.Attempts(t.Context(), webhook)
	if err != nil {
		t.Fatal(err)
	}
	return log
}
