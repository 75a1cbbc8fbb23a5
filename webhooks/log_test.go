package webhooks_test

import (
	"fmt"
	"net/http"
	"testing"

	"tempmail/backend/backendtest"
	"tempmail/eventually"
)

// TestTheLogKeepsTheNewestFiftyAttempts: of 55 deliveries, made one after
// another, the log shows the newest 50, newest first, each as its
// receiver answered it: the status, how long, and the start of a taken
// delivery's answer, made valid UTF-8. The subscription is not failing.
func TestTheLogKeepsTheNewestFiftyAttempts(t *testing.T) {
	t.Parallel()
	svc := start(t, nil)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("taken \xff"))
	})
	in := backendtest.CreateInbox(t, svc, "")
	h := subscribe(t, svc, rc.URL, in)
	const n, kept = 55, 50
	var ids []string // newest first
	for i := range n {
		backendtest.Deliver(t, svc, in.Token, fmt.Sprintf("m%d", i))
		id := rc.take(t, 1)[0].id()
		ids = append([]string{id}, ids...)
		eventually.True(t, "the attempt logged", func() bool {
			log := attempts(t, svc, h.ID)
			return len(log) > 0 && log[0].EventID == id
		})
	}
	log := attempts(t, svc, h.ID)
	if len(log) != kept {
		t.Fatalf("the log holds %d attempts, want the newest %d", len(log), kept)
	}
	for i, a := range log {
		if a.EventID != ids[i] || a.Attempt != 1 || a.StatusCode != http.StatusAccepted || a.Error != "" ||
			a.Response != "taken ?" || a.DurationMS < 0 || a.GaveUp || a.Next != nil || a.At.IsZero() {
			t.Errorf("entry %d: %+v, want the attempt of %s", i, a, ids[i])
		}
	}
	if s, err := svc.Hooks.State(t.Context(), h.ID); err != nil || s.Failing {
		t.Errorf("the subscription: %+v %v", s, err)
	}
}
