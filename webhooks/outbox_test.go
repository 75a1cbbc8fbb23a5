package webhooks_test

import (
	"context"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"tempmail/backend/backendtest"
	"tempmail/projections"
)

// TestADeliveryEnqueuedAgainIsMadeOnce: the outbox takes a delivery again
// (a projection worker that crashed after enqueueing dispatches its event
// once more), from several workers at once: it is made once, under the
// id that names the event and the subscription.
func TestADeliveryEnqueuedAgainIsMadeOnce(t *testing.T) {
	t.Parallel()
	svc := start(t, nil)
	rc := newReceiver(t, nil)
	h := subscribe(t, svc, rc.URL, nil, "message.read")
	d := projections.Delivery{Webhook: h.ID, Kind: "message.read", Seq: 41, At: time.Now().UTC(),
		InboxID: "e1f2a3b4-0000-4000-8000-000000000001", Address: "again@tempmail.test", MessageID: "m-41"}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 2 {
				if err := svc.Hooks.Enqueue(context.Background(), []projections.Delivery{d}); err != nil {
					t.Errorf("enqueue: %v", err)
				}
			}
		})
	}
	wg.Wait()
	got := rc.take(t, 1)[0]
	settled(t, svc)
	if len(rc.got) != 0 {
		t.Errorf("a delivery enqueued 8 times was made %d times", 1+len(rc.got))
	}
	if got.id() != "msg_41_"+h.ID || got.event.Type != "message.read" || got.event.Data["id"] != "m-41" ||
		got.event.Data["address"] != "again@tempmail.test" {
		t.Errorf("the delivery: %s %s", got.id(), got.body)
	}
	if err := verify(h.Secret, got); err != nil {
		t.Error(err)
	}
}

// TestAnAttemptCutByAStopIsMadeAgainAfterARestart: a service stopped while
// an attempt waits for its answer hands the delivery back; the next start
// makes it, under the same id, and the log holds that attempt alone: the
// one cut short was no failure.
func TestAnAttemptCutByAStopIsMadeAgainAfterARestart(t *testing.T) {
	t.Parallel()
	cfg := backendtest.ConfigIn(filepath.Join(t.TempDir(), "data"))
	cfg.WebhookAllowPrivate = true
	svc := backendtest.Start(t, cfg)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			<-r.Context().Done() // until the sender goes
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	in := backendtest.CreateInbox(t, svc, "")
	h := subscribe(t, svc, rc.URL, in)
	backendtest.Deliver(t, svc, in.Token, "cut short")
	cut := rc.take(t, 1)[0]
	backendtest.Stop(svc)

	svc = backendtest.Start(t, cfg)
	again := rc.take(t, 1)[0]
	if again.id() != cut.id() || again.event.Data["subject"] != "cut short" {
		t.Errorf("after the restart: %s %s, want %s", again.id(), again.body, cut.id())
	}
	settled(t, svc) // an attempt is logged before its job is done with
	if log := attempts(t, svc, h.ID); len(log) != 1 || log[0].Attempt != 1 || log[0].StatusCode != http.StatusNoContent || log[0].Error != "" {
		t.Errorf("the log: %+v, want the one attempt that was answered", log)
	}
	if s, err := svc.Hooks.State(t.Context(), h.ID); err != nil || s.Failing {
		t.Errorf("the subscription: %+v %v", s, err)
	}
}
