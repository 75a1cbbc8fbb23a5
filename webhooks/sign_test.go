package webhooks_test

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tempmail/backend/backendtest"
	"tempmail/webhooks"
)

// TestNewSecretIsAFreshWhsecKey: a secret is "whsec_" and the base64 of 32
// bytes, a new one each time.
func TestNewSecretIsAFreshWhsecKey(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		s := webhooks.NewSecret()
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if !strings.HasPrefix(s, "whsec_") || err != nil || len(key) != 32 {
			t.Fatalf("secret %q: %v, %d bytes", s, err, len(key))
		}
		if seen[s] {
			t.Fatalf("secret %q made twice", s)
		}
		seen[s] = true
	}
}

// TestARetryIsSignedWithTheSecretInForce: a subscription's secret rotated
// while an attempt is under way signs the retry of that delivery, which
// no longer verifies with the secret before; the webhook-id stays, and the
// retry has a webhook-timestamp of its own.
func TestARetryIsSignedWithTheSecretInForce(t *testing.T) {
	t.Parallel()
	svc := start(t, nil, schedule(time.Second))
	rotated := make(chan struct{})
	letGo := sync.OnceFunc(func() { close(rotated) })
	defer letGo()
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			select {
			case <-rotated:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	in := backendtest.CreateInbox(t, svc, "")
	h := subscribe(t, svc, rc.URL, in)
	backendtest.Deliver(t, svc, in.Token, "signed")
	first := rc.take(t, 1)[0]
	if err := verify(h.Secret, first); err != nil {
		t.Errorf("the first attempt: %v", err)
	}
	_, secret, err := svc.Commands.RotateSecret(t.Context(), h)
	letGo()
	if err != nil {
		t.Fatal(err)
	}
	retry := rc.take(t, 1)[0]
	if err := verify(secret, retry); err != nil {
		t.Errorf("the retry, with the new secret: %v", err)
	}
	if verify(h.Secret, retry) == nil {
		t.Error("the retry verifies with the secret before the rotation")
	}
	sent := func(h hit) int64 {
		ts, _ := strconv.ParseInt(h.header.Get("webhook-timestamp"), 10, 64)
		return ts
	}
	if retry.id() != first.id() || sent(retry) <= sent(first) {
		t.Errorf("first %s sent at %d, retry %s at %d", first.id(), sent(first), retry.id(), sent(retry))
	}
}
