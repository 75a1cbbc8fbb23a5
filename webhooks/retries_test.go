package webhooks_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"tempmail"
	"tempmail/backend/backendtest"
	"tempmail/eventually"
	"tempmail/webhooks"
)

// TestRetriesFollowTheScheduleNotRetryAfter: with a retry schedule of 1 s
// then 2 s, a receiver that refuses every attempt, asking to be left alone
// for an hour (429 and 503 with Retry-After), gets the first retry a
// second after the first failure and the second two seconds after the
// second: the schedule decides, Retry-After does not. Each attempt is
// signed afresh, under the one webhook-id; the log says when the next is
// due, and after the last that the delivery is given up, and the
// subscription is failing. Nothing more comes of it.
func TestRetriesFollowTheScheduleNotRetryAfter(t *testing.T) {
	t.Parallel()
	svc := start(t, nil, schedule(time.Second, 2*time.Second))
	statuses := []int{http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusInternalServerError}
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(statuses[min(n, 3)-1])
	})
	in := backendtest.CreateInbox(t, svc, "")
	h := subscribe(t, svc, rc.URL, in)
	backendtest.Deliver(t, svc, in.Token, "refused")
	hits := rc.take(t, 3)
	var log []webhooks.Attempt
	eventually.True(t, "the delivery given up", func() bool {
		log = attempts(t, svc, h.ID)
		return len(log) == 3 && log[0].GaveUp
	})
	waits := []time.Duration{time.Second, 2 * time.Second}
	for i, hit := range hits {
		a := log[2-i] // the log is newest first
		if a.Attempt != i+1 || a.StatusCode != statuses[i] || a.EventID != hits[0].id() || a.EventType != "message.received" {
			t.Errorf("attempt %d logged as %+v", i+1, a)
		}
		if want := fmt.Sprintf("the receiver answered %d", statuses[i]); a.Error != want {
			t.Errorf("attempt %d's error %q, want %q", i+1, a.Error, want)
		}
		if hit.id() != hits[0].id() {
			t.Errorf("attempt %d has webhook-id %q, the first %q", i+1, hit.id(), hits[0].id())
		}
		if err := verify(h.Secret, hit); err != nil {
			t.Errorf("attempt %d: %v", i+1, err)
		}
		if ua := hit.header.Get("User-Agent"); ua != "tempmail-webhooks/test" {
			t.Errorf("User-Agent %q", ua)
		}
		if i == len(waits) {
			if a.Next != nil || !a.GaveUp {
				t.Errorf("the last attempt: %+v, want given up with no next", a)
			}
			continue
		}
		// The next attempt is due a wait after this one's answer, and
		// comes no sooner.
		answered := a.At.Add(time.Duration(a.DurationMS) * time.Millisecond)
		if a.GaveUp || a.Next == nil || a.Next.Sub(answered) < waits[i]-time.Millisecond || a.Next.Sub(answered) > waits[i]+time.Second {
			t.Errorf("attempt %d, answered at %v: next %v, want %v later", i+1, answered, a.Next, waits[i])
		} else if next := hits[i+1].at; next.Before(*a.Next) {
			t.Errorf("attempt %d came at %v, before it was due at %v", i+2, next, *a.Next)
		}
	}
	s, err := svc.Hooks.State(t.Context(), h.ID)
	if err != nil || !s.Failing || s.Since.Before(log[0].At) {
		t.Errorf("after giving up the subscription is %+v (%v), want failing since the last attempt", s, err)
	}
	settled(t, svc)
	if len(rc.got) != 0 {
		t.Errorf("%d attempts after the last", len(rc.got))
	}
}

// TestARetryForAnEndedSubscriptionIsDropped: a delivery whose subscription
// ended while its retry waited is not tried again, and the ended
// subscription's log stays empty.
func TestARetryForAnEndedSubscriptionIsDropped(t *testing.T) {
	t.Parallel()
	svc := start(t, nil, schedule(time.Second))
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	in := backendtest.CreateInbox(t, svc, "")
	h := subscribe(t, svc, rc.URL, in)
	backendtest.Deliver(t, svc, in.Token, "refused")
	rc.take(t, 1)
	eventually.True(t, "the retry scheduled", func() bool {
		log := attempts(t, svc, h.ID)
		return len(log) == 1 && log[0].Next != nil
	})
	if err := svc.Commands.Unsubscribe(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, "the retry dropped", func() bool { return outcome(t, svc, "dropped") == 1 })
	settled(t, svc)
	if len(rc.got) != 0 {
		t.Error("a retry was made for a subscription that had ended")
	}
	if log := attempts(t, svc, h.ID); len(log) != 0 {
		t.Errorf("the ended subscription's log: %+v", log)
	}
}

// TestAnInboxsEndReachesItsOwnSubscriptionRetriedToo: the subscription an
// inbox's owner made ends with the inbox, yet hears of the end, and is
// tried again when it refuses, signed with its secret, under one id.
func TestAnInboxsEndReachesItsOwnSubscriptionRetriedToo(t *testing.T) {
	t.Parallel()
	svc := start(t, nil, schedule(time.Second))
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	in := backendtest.CreateInbox(t, svc, "")
	h := subscribe(t, svc, rc.URL, in, "inbox.deleted")
	inbox, err := svc.Views.InboxByToken(t.Context(), in.Token)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Commands.DeleteInbox(t.Context(), inbox); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Views.Webhook(t.Context(), h.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Fatalf("the inbox's own subscription outlived it: %v", err)
	}
	hits := rc.take(t, 2)
	for i, hit := range hits {
		if hit.event.Type != "inbox.deleted" || hit.event.Data["address"] != in.Address || hit.id() != hits[0].id() {
			t.Errorf("attempt %d: %s %s", i+1, hit.id(), hit.body)
		}
		if err := verify(h.Secret, hit); err != nil {
			t.Errorf("attempt %d: %v", i+1, err)
		}
	}
	settled(t, svc)
	if got := outcome(t, svc, "delivered"); got != 1 {
		t.Errorf("%v delivered, want the one", got)
	}
}
