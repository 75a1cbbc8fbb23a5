package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
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
	"tempmail/service/apitest"
	"tempmail/webhooks"
)

// TestWebhooksDeliverEveryKindSigned: mail over SMTP, a read, a deletion and
// the inbox's end reach the operator's subscription to every inbox and the
// inbox owner's own, each signed as the Standard Webhooks specification
// says, with family A's summary of a new message and no token.
func TestWebhooksDeliverEveryKindSigned(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate)
	all, own := newReceiver(t, h.Contract), newReceiver(t, h.Contract)
	global := subscribe(h, `{"url":"`+all.srv.URL+`/hook","events":["message.received","message.read","message.deleted","inbox.deleted","inbox.expired"]}`)
	if global["inbox_id"] != nil || global["failing"] != false || !strings.HasPrefix(global["secret"].(string), "whsec_") {
		t.Errorf("created: %v", global)
	}
	token, address := h.TokenInbox()
	r := h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"`+own.srv.URL+`","events":["message.received","inbox.deleted"]}`, "Content-Type", apitest.JSONType)
	if r.Status != http.StatusCreated {
		t.Fatalf("inbox subscription: %d %s", r.Status, r.Body)
	}
	mine := r.JSON(t)
	inbox := h.Do("GET", "/inboxes/"+token+"/", "").JSON(t)
	_ = inbox

	h.SendMail(address, "From: Shop <shop@example.com>\r\nSubject: Your code\r\n\r\nYour code is 482913.\r\n")
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
		if strings.Contains(string(d.Body), token) || strings.Contains(string(d.Body), apitest.TestToken) {
			t.Errorf("a delivery carries a token: %s", d.Body)
		}
		if d.Header.Get("Content-Type") != "application/json" {
			t.Errorf("content type %q", d.Header.Get("Content-Type"))
		}
	}
	id := h.MessageIDBySubject(token, "Your+code")
	h.Expect(h.Do("POST", "/inboxes/"+token+"/messages/"+id+"/read/", "{}"), 200, "")
	if d := all.nextOf("message.read"); d.Event.Data["id"] != id || d.Event.Data["address"] != address {
		t.Errorf("message.read: %s", d.Body)
	}
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/messages/"+id+"/", ""), 204, "")
	if d := all.nextOf("message.deleted"); d.Event.Data["id"] != id {
		t.Errorf("message.deleted: %s", d.Body)
	}

	// The inbox's end reaches its own subscription too, which then ends.
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/", ""), 204, "")
	for _, rc := range []*receiver{all, own} {
		if d := rc.nextOf("inbox.deleted"); d.Event.Data["address"] != address {
			t.Errorf("inbox.deleted: %s", d.Body)
		}
	}
	h.Expect(h.Do("GET", "/api/webhooks/"+mine["id"].(string)+"/", "", "Authorization", "Token "+apitest.TestToken), 404, `{"detail":"Not found."}`)

	// The attempt is recorded once its answer is in, a moment after the
	// receiver saw it.
	var log []map[string]any
	eventually.Nil(t, "4 attempts in the log", func() error {
		if log = attempts(h, global["id"].(string)); len(log) != 4 {
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
	h := apitest.New(t, allowPrivate, func(c *config.Config) {
		c.WebhookRetrySchedule = []time.Duration{time.Second, time.Second}
	})
	rc := newReceiver(t, h.Contract)
	rc.answerWith(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, strings.Repeat("busy ", 1000), http.StatusInternalServerError)
	})
	sub := subscribe(h, `{"url":"`+rc.srv.URL+`"}`)
	id := sub["id"].(string)
	token, address := h.TokenInbox()
	_ = token
	h.SendMail(address, "Subject: retried\r\n\r\nx\r\n")
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
		log = attempts(h, id)
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
	got := h.Do("GET", "/api/webhooks/"+id+"/", "", "Authorization", "Token "+apitest.TestToken).JSON(t)
	if got["failing"] != true || got["failing_since"] == nil {
		t.Errorf("after giving up: %v", got)
	}
	// Nothing more is to come of it: once the outbox holds no delivery,
	// no retry is scheduled, and a fourth attempt would have been made
	// already.
	waitNoPendingDeliveries(h)
	select {
	case d := <-rc.got:
		t.Errorf("a fourth attempt: %s", d.Header.Get("webhook-id"))
	default:
	}

	// A success clears it, and its answer's start is kept.
	rc.answerWith(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, strings.Repeat("fine ", 1000)) })
	h.SendMail(address, "Subject: fine now\r\n\r\nx\r\n")
	rc.next()
	eventually.True(t, "failing cleared", func() bool {
		return h.Do("GET", "/api/webhooks/"+id+"/", "", "Authorization", "Token "+apitest.TestToken).JSON(t)["failing"] == false
	})
	if resp := attempts(h, id)[0]["response"].(string); len(resp) != 1024 || !strings.HasPrefix(resp, "fine") {
		t.Errorf("the log keeps %d bytes of a success's answer, want 1 KiB", len(resp))
	}
}

// TestWebhookReceiverDownThenUp: deliveries to a receiver that refuses
// connections are retried, and arrive once it is back.
func TestWebhookReceiverDownThenUp(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate, func(c *config.Config) {
		c.WebhookRetrySchedule = []time.Duration{time.Second, time.Second, time.Second, time.Second}
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // down
	sub := subscribe(h, `{"url":"http://`+addr+`/"}`)
	_, address := h.TokenInbox()
	h.SendMail(address, "Subject: while down\r\n\r\nx\r\n")
	eventually.True(t, "a refused attempt logged", func() bool {
		log := attempts(h, sub["id"].(string))
		return len(log) > 0 && log[0]["status_code"] == 0.0 && strings.Contains(log[0]["error"].(string), "refused")
	})
	rc := &receiver{t: t, contract: h.Contract, got: make(chan delivered, 10)}
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
	h := apitest.NewWith(t, service.Options{Webhooks: func(o *webhooks.Options) { o.AttemptTimeout = 300 * time.Millisecond }}, allowPrivate,
		func(c *config.Config) { c.WebhookRetrySchedule = nil })
	rc := newReceiver(t, h.Contract)
	rc.answerWith(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	sub := subscribe(h, `{"url":"`+rc.srv.URL+`"}`)
	_, address := h.TokenInbox()
	h.SendMail(address, "Subject: unanswered\r\n\r\nx\r\n")
	eventually.True(t, "the attempt given up", func() bool {
		log := attempts(h, sub["id"].(string))
		return len(log) == 1 && log[0]["gave_up"] == true
	})
	a := attempts(h, sub["id"].(string))[0]
	if a["error"] != "no answer within 300ms" || a["status_code"] != 0.0 || a["duration_ms"].(float64) < 300 || a["duration_ms"].(float64) > 5000 {
		t.Errorf("an unanswered attempt: %v", a)
	}
}

// TestSlowReceiverDelaysNoOtherSubscription: while one receiver holds every
// delivery it gets, another subscription's deliveries all arrive.
func TestSlowReceiverDelaysNoOtherSubscription(t *testing.T) {
	t.Parallel()
	// The slow receiver's attempts are held for as long as the test
	// takes: one that ran out of time (10 s by default, which a loaded
	// machine can take to deliver the 30 messages to the fast one) would
	// free its place in the lane for another, and the count of those held
	// at once would not be the lane's.
	h := apitest.NewWith(t, service.Options{Webhooks: func(o *webhooks.Options) { o.AttemptTimeout = 5 * time.Minute }}, allowPrivate)
	slow, fast := newReceiver(t, h.Contract), newReceiver(t, h.Contract)
	release := make(chan struct{})
	slow.answerWith(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	subscribe(h, `{"url":"`+slow.srv.URL+`"}`)
	subscribe(h, `{"url":"`+fast.srv.URL+`"}`)
	_, address := h.TokenInbox()
	const n = 30
	for i := range n {
		h.SendMail(address, fmt.Sprintf("Subject: m%d\r\n\r\nx\r\n", i))
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

// TestWebhookPayloadsOfEveryKind: a message deleted between its delivery's
// attempts is delivered with its own ids, received_at and size and nothing
// of what it said; a person's deletion carries an empty reason, an
// eviction "cap"; an inbox's expiry is told. Each is checked against the
// document by the receiver.
func TestWebhookPayloadsOfEveryKind(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate, func(c *config.Config) {
		c.WebhookRetrySchedule = []time.Duration{time.Second}
		c.MinInboxTTL = time.Second
		c.MaxMessagesPerInbox = 2
	})
	rc := newReceiver(t, h.Contract)
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
	subscribe(h, `{"url":"`+rc.srv.URL+`","events":["message.received","message.deleted","inbox.expired"]}`)
	token, address := h.TokenInbox()
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

	h.SendMail(address, "From: Shop <shop@example.com>\r\nSubject: gone soon\r\n\r\nWhat it said.\r\n")
	msg := h.WaitLatest(token, "")
	id := msg["id"].(string)
	attempt := await("first attempt", is("message.received", "id", id))
	if attempt.Event.Data["subject"] != "gone soon" {
		t.Errorf("the first attempt: %s", attempt.Body)
	}
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/messages/"+id+"/", ""), 204, "")
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
		h.SendMail(address, fmt.Sprintf("Subject: m%d\r\n\r\nx\r\n", i))
		after = h.WaitLatest(token, after)["id"].(string)
	}
	await("an eviction", func(d delivered) bool { return d.Event.Type == "message.deleted" && d.Event.Data["reason"] == "cap" })

	a := h.CreateInboxA(`{"domain_id":1,"ttl":1}`)
	await("the expiry", is("inbox.expired", "inbox_id", a["id"].(string)))
}

// TestSubscriptionCapsHoldUnderRaces: forty subscriptions to one inbox at
// once, each on a connection of its own opened beforehand, leave at most
// the cap; the rest are refused with 409, none half made. The same for
// subscriptions to every inbox, beyond theirs.
func TestSubscriptionCapsHoldUnderRaces(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate, func(c *config.Config) { c.CreateRatePerClient = config.Rate{} })
	token, _ := h.TokenInbox()
	race := func(n int, path string, headers ...string) (created, refused int) {
		t.Helper()
		clients := make([]*http.Client, n)
		for i := range clients {
			// A connection each, opened before the race starts.
			clients[i] = h.ClientVia(&http.Transport{}, 30*time.Second)
			h.Expect(h.DoWith(clients[i], "GET", "/livez", ""), http.StatusOK, "")
		}
		start := make(chan struct{})
		codes := make(chan int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				r := h.DoWith(clients[i], "POST", path, `{"url":"http://127.0.0.1:9/`+strconv.Itoa(i)+`"}`, headers...)
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
	r := h.Do("GET", "/inboxes/"+token+"/webhooks/", "")
	var list []any
	_ = json.Unmarshal(r.Body, &list)
	if created > projections.MaxInboxWebhooks || created+refused != 40 || len(list) != created {
		t.Errorf("40 racing subscriptions to one inbox: %d created, %d refused, %d listed; want at most %d", created, refused, len(list), projections.MaxInboxWebhooks)
	}
	for range projections.MaxGlobalWebhooks - 20 {
		subscribe(h, `{"url":"http://127.0.0.1:9/"}`)
	}
	created, refused = race(40, "/api/webhooks/", "Authorization", "Token "+apitest.TestToken, "Content-Type", "application/json")
	if created > 20 || created+refused != 40 {
		t.Errorf("40 racing subscriptions to every inbox with 20 places left: %d created, %d refused", created, refused)
	}
}
