package api_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/service/apitest"
)

// TestEventStreamTellsEveryChange: a client reading the stream sees mail
// arriving over SMTP, reads and deletions, each with an id, in order.
func TestEventStreamTellsEveryChange(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, address := h.TokenInbox()
	s := h.OpenStream("/inboxes/"+token+"/events/", "")
	h.SendMail(address, "Subject: first\r\n\r\nYour code is 123456\r\n")
	ev := s.Next()
	if ev.Name != "message" || ev.Data["subject"] != "first" || ev.Data["to"] != address || ev.Data["preview"] != "Your code is 123456" {
		t.Fatalf("first event: %+v", ev)
	}
	first, _ := strconv.ParseUint(ev.ID, 10, 64)
	id := ev.Data["id"].(string)

	h.Expect(h.Do("POST", "/inboxes/"+token+"/messages/"+id+"/read/", "{}"), 200, "")
	ev = s.Next()
	if ev.Name != "read" || ev.Data["id"] != id {
		t.Errorf("after marking it read: %+v", ev)
	}
	read, _ := strconv.ParseUint(ev.ID, 10, 64)
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/messages/"+id+"/", ""), 204, "")
	ev = s.Next()
	if ev.Name != "deleted" || ev.Data["id"] != id {
		t.Errorf("after deleting it: %+v", ev)
	}
	deleted, _ := strconv.ParseUint(ev.ID, 10, 64)
	if !(first < read && read < deleted) {
		t.Errorf("ids %d, %d, %d do not grow", first, read, deleted)
	}

	// Deleting the inbox ends the stream.
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/", ""), 204, "")
	ev = s.Next()
	if ev.Name != "expired" || ev.Data["reason"] != "deleted" {
		t.Errorf("after deleting the inbox: %+v", ev)
	}
	if !s.Ended() {
		t.Error("the stream goes on after its inbox was deleted")
	}
	h.Expect(h.Do("GET", "/inboxes/"+token+"/events/", ""), 404, `{"error":"Inbox not found"}`)
}

// TestEventStreamResumesFromLastEventID: a client that reconnects with
// Last-Event-ID gets exactly what it missed while away, in order; of a
// message that came and went meanwhile it hears nothing.
func TestEventStreamResumesFromLastEventID(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, address := h.TokenInbox()
	s := h.OpenStream("/inboxes/"+token+"/events/", "")
	h.SendMail(address, "Subject: seen a\r\n\r\nx\r\n")
	a := s.Next()
	h.SendMail(address, "Subject: seen b\r\n\r\nx\r\n")
	b := s.Next()
	s.Close()

	h.SendMail(address, "Subject: missed one\r\n\r\nx\r\n")
	h.SendMail(address, "Subject: missed two\r\n\r\nx\r\n")
	two := h.MessageIDBySubject(token, "missed+two")
	h.Expect(h.Do("POST", "/inboxes/"+token+"/messages/"+a.Data["id"].(string)+"/read/", "{}"), 200, "")
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/messages/"+b.Data["id"].(string)+"/", ""), 204, "")
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/messages/"+two+"/", ""), 204, "")

	s = h.OpenStream("/inboxes/"+token+"/events/", b.ID)
	var got []string
	for range 3 {
		ev := s.Next()
		name := ev.Name
		if subject, ok := ev.Data["subject"].(string); ok {
			name += " " + subject
		} else if ev.Data["id"] == a.Data["id"] {
			name += " a"
		} else if ev.Data["id"] == b.Data["id"] {
			name += " b"
		}
		got = append(got, name)
	}
	want := "message missed one,read a,deleted b"
	if strings.Join(got, ",") != want {
		t.Errorf("after reconnecting: %v, want %s", got, want)
	}

	// A fresh stream starts from now.
	fresh := h.OpenStream("/inboxes/"+token+"/events/", "")
	h.SendMail(address, "Subject: new\r\n\r\nx\r\n")
	if ev := fresh.Next(); ev.Data["subject"] != "new" {
		t.Errorf("a fresh stream's first event: %+v", ev)
	}
	r := h.Do("GET", "/inboxes/"+token+"/events/", "", "Last-Event-ID", "yesterday")
	h.Expect(r, http.StatusBadRequest, "")
}

// TestEventStreamTellsAClientAwayTooLongToReload: the service remembers an
// inbox's last 64 deletions; a client that missed more is told to load
// the list afresh (reset), and the stream goes on. From 0, it holds
// nothing stale, and is sent what the inbox holds.
func TestEventStreamTellsAClientAwayTooLongToReload(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, address := h.TokenInbox()
	s := h.OpenStream("/inboxes/"+token+"/events/", "")
	const n = 70
	var ids []string
	var last apitest.Event
	for i := range n {
		h.SendMail(address, "Subject: m"+strconv.Itoa(i)+"\r\n\r\nx\r\n")
		last = s.Next()
		ids = append(ids, last.Data["id"].(string))
	}
	h.SendMail(address, "Subject: kept\r\n\r\nx\r\n")
	kept := s.Next()
	s.Close()
	for _, id := range ids {
		h.Expect(h.Do("DELETE", "/inboxes/"+token+"/messages/"+id+"/", ""), 204, "")
	}

	s = h.OpenStream("/inboxes/"+token+"/events/", kept.ID)
	ev := s.Next()
	if ev.Name != "reset" || len(ev.Data) != 0 || ev.ID == "" {
		t.Fatalf("resuming after %d deletions: %+v, want reset with an id and {}", n, ev)
	}
	if r, _ := strconv.ParseUint(ev.ID, 10, 64); r <= mustUint(t, kept.ID) {
		t.Errorf("reset id %s is not past the resumed one %s", ev.ID, kept.ID)
	}
	h.SendMail(address, "Subject: after\r\n\r\nx\r\n")
	after := s.Next()
	if after.Name != "message" || after.Data["subject"] != "after" {
		t.Errorf("after the reset: %+v, want the next message", after)
	}

	// Resuming from a point the removals still cover is exact, as before.
	s = h.OpenStream("/inboxes/"+token+"/events/", after.ID)
	h.SendMail(address, "Subject: later\r\n\r\nx\r\n")
	if ev := s.Next(); ev.Name != "message" || ev.Data["subject"] != "later" {
		t.Errorf("resumed after the reset: %+v, want the next message", ev)
	}

	// From 0: every message the inbox holds, and no reset.
	s = h.OpenStream("/inboxes/"+token+"/events/", "0")
	var got []string
	for range 3 {
		ev := s.Next()
		got = append(got, ev.Name+" "+fmt.Sprint(ev.Data["subject"]))
	}
	if want := "message kept,message after,message later"; strings.Join(got, ",") != want {
		t.Errorf("from 0: %v, want %s", got, want)
	}
}

// TestEventStreamResumedFromBeyondItsHeadResets: a Last-Event-ID past the
// inbox's last change (2^64-1, or another service's id) gets reset, and
// the stream goes on telling what happens, rather than nothing for good.
func TestEventStreamResumedFromBeyondItsHeadResets(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, address := h.TokenInbox()
	h.SendMail(address, "Subject: before\r\n\r\nx\r\n")
	h.MessageIDBySubject(token, "before")
	// One after the other: each stream hears of the other's mail.
	for _, from := range []string{"18446744073709551615", "1000000"} {
		t.Run(from, func(t *testing.T) {
			h := h.As(t)
			s := h.OpenStream("/inboxes/"+token+"/events/", from)
			ev := s.Next()
			if ev.Name != "reset" || len(ev.Data) != 0 || ev.ID == "" || ev.ID == from {
				t.Fatalf("resuming from %s: %+v, want reset with the inbox's own id", from, ev)
			}
			subject := "after-" + from
			h.SendMail(address, "Subject: "+subject+"\r\n\r\nx\r\n")
			if ev := s.Next(); ev.Name != "message" || ev.Data["subject"] != subject {
				t.Errorf("after the reset: %+v, want the next message", ev)
			}
			s.Close()
		})
	}
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%q is not a number: %v", s, err)
	}
	return n
}

// TestEventStreamEndsAtExpiryAndKeepsAlive: a stream of an inbox that
// expires ends with expired (by its time, before the server's event), and
// an idle stream sends keep-alive comments.
func TestEventStreamEndsAtExpiryAndKeepsAlive(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.MinInboxTTL = time.Second })
	h.Service.API.SetKeepAlive(200 * time.Millisecond)

	// Keep-alives are waited for, not counted against the clock: a loaded
	// machine may open the stream late, but an idle stream must go on
	// sending them.
	idle := h.CreateInboxA(`{"domain_id":1}`)
	s := h.OpenStream("/api/inboxes/"+idle["id"].(string)+"/events/", "")
	deadline := time.After(30 * time.Second)
	for comments := 0; comments < 3; {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatal("an idle stream ended")
			}
			if !ev.Comment {
				t.Fatalf("an idle stream sent %+v", ev)
			}
			comments++
		case <-deadline:
			t.Fatalf("%d keep-alive comments in 30 s at one per 200 ms", comments)
		}
	}
	s.Close()

	in := h.CreateInboxA(`{"domain_id":1,"ttl":2}`)
	s = h.OpenStream("/api/inboxes/"+in["id"].(string)+"/events/", "")
	ev := s.Next() // comments skipped
	if ev.Name != "expired" || ev.Data["reason"] != "expired" || ev.Data["id"] != in["id"] {
		t.Errorf("at expiry: %+v", ev)
	}
	if !s.Ended() {
		t.Error("the stream goes on after its inbox expired")
	}
}

// TestEventStreamsCostNoConsumersAndAreCapped: streams are fed by the
// process's hub, not a NATS consumer each, and count against
// --max-waiters; family A's stream keeps family A's auth.
func TestEventStreamsCostNoConsumersAndAreCapped(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.MaxWaiters = 20; c.RequireToken = true })
	token, address := h.TokenInbox()
	before := consumers(h)
	var streams []*apitest.Stream
	for range 20 {
		streams = append(streams, h.OpenStream("/inboxes/"+token+"/events/", ""))
	}
	if n := consumers(h); n != before {
		t.Errorf("20 streams made %d consumers", n-before)
	}
	r := h.Do("GET", "/inboxes/"+token+"/events/", "")
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("a 21st stream: %d %s", r.Status, r.Body)
	}
	h.SendMail(address, "Subject: to all\r\n\r\nx\r\n")
	for _, s := range streams {
		if ev := s.Next(); ev.Data["subject"] != "to all" {
			t.Errorf("a stream got %+v", ev)
		}
		s.Close()
	}

	// Family A's stream, under --require-token, needs the token.
	r = h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, "Content-Type", apitest.JSONType, "Authorization", "Token "+apitest.TestToken)
	id := r.JSON(t)["id"].(string)
	h.Expect(h.Do("GET", "/api/inboxes/"+id+"/events/", ""), 401, `{"detail":"Authentication credentials were not provided."}`)
	a := h.OpenStream("/api/inboxes/"+id+"/events/", "", "Authorization", "Token "+apitest.TestToken)
	h.SendMail(r.JSON(t)["email"].(string), "From: sender@example.com\r\nSubject: to a\r\n\r\nx\r\n")
	if ev := a.Next(); ev.Name != "message" || ev.Data["subject"] != "to a" || ev.Data["from_email"] != "sender@example.com" {
		t.Errorf("family A's stream: %+v", ev)
	}
}
