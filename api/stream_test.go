package api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/config"
)

// sse is an event stream as a test client reads it.
type sse struct {
	t      *testing.T
	resp   *http.Response
	r      *bufio.Reader
	events chan sseEvent
}

type sseEvent struct {
	ID, Name string
	Data     map[string]any
	Comment  bool
}

// openStream connects to path with a real HTTP client; lastID, when set,
// is sent as Last-Event-ID.
func (h *harness) openStream(path, lastID string, headers ...string) *sse {
	h.t.Helper()
	req, _ := http.NewRequest("GET", h.url+path, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.clientVia(http.DefaultTransport, 0).Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		h.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &sse{t: h.t, resp: resp, r: bufio.NewReader(resp.Body), events: make(chan sseEvent, 100)}
	h.t.Cleanup(s.close)
	go s.read()
	return s
}

func (s *sse) close() { s.resp.Body.Close() }

// read parses the stream into events until it ends.
func (s *sse) read() {
	defer close(s.events)
	var ev sseEvent
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev.Name != "" || ev.Comment {
				s.events <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, ":"):
			ev.Comment = true
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.Name = line[7:]
		case strings.HasPrefix(line, "data: "):
			_ = json.Unmarshal([]byte(line[6:]), &ev.Data)
		}
	}
}

// next returns the next event that is not a keep-alive comment, within
// 20 s whatever comments come meanwhile.
func (s *sse) next() sseEvent {
	s.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatal("the stream ended")
			}
			if !ev.Comment {
				return ev
			}
		case <-deadline:
			s.t.Fatal("no event within 20 s")
		}
	}
}

// ended waits for the stream to close.
func (s *sse) ended() bool {
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return true
			}
			s.t.Logf("after the end: %+v", ev)
		case <-time.After(10 * time.Second):
			return false
		}
	}
}

func (h *harness) messageIDBySubject(token, subject string) string {
	h.t.Helper()
	r := h.do("GET", "/inboxes/"+token+"/latest/?wait=10&subject="+subject, "")
	if r.Status != 200 {
		h.t.Fatalf("latest %s: %d %s", subject, r.Status, r.Body)
	}
	return r.JSON(h.t)["id"].(string)
}

// TestEventStreamTellsEveryChange: a client reading the stream sees mail
// arriving over SMTP, reads and deletions, each with an id, in order.
func TestEventStreamTellsEveryChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	token, address := h.tokenInbox()
	s := h.openStream("/inboxes/"+token+"/events/", "")
	h.sendMail(address, "Subject: first\r\n\r\nYour code is 123456\r\n")
	ev := s.next()
	if ev.Name != "message" || ev.Data["subject"] != "first" || ev.Data["to"] != address || ev.Data["preview"] != "Your code is 123456" {
		t.Fatalf("first event: %+v", ev)
	}
	first, _ := strconv.ParseUint(ev.ID, 10, 64)
	id := ev.Data["id"].(string)

	h.expect(h.do("POST", "/inboxes/"+token+"/messages/"+id+"/read/", "{}"), 200, "")
	ev = s.next()
	if ev.Name != "read" || ev.Data["id"] != id {
		t.Errorf("after marking it read: %+v", ev)
	}
	read, _ := strconv.ParseUint(ev.ID, 10, 64)
	h.expect(h.do("DELETE", "/inboxes/"+token+"/messages/"+id+"/", ""), 204, "")
	ev = s.next()
	if ev.Name != "deleted" || ev.Data["id"] != id {
		t.Errorf("after deleting it: %+v", ev)
	}
	deleted, _ := strconv.ParseUint(ev.ID, 10, 64)
	if !(first < read && read < deleted) {
		t.Errorf("ids %d, %d, %d do not grow", first, read, deleted)
	}

	// Deleting the inbox ends the stream.
	h.expect(h.do("DELETE", "/inboxes/"+token+"/", ""), 204, "")
	ev = s.next()
	if ev.Name != "expired" || ev.Data["reason"] != "deleted" {
		t.Errorf("after deleting the inbox: %+v", ev)
	}
	if !s.ended() {
		t.Error("the stream goes on after its inbox was deleted")
	}
	h.expect(h.do("GET", "/inboxes/"+token+"/events/", ""), 404, `{"error":"Inbox not found"}`)
}

// TestEventStreamResumesFromLastEventID: a client that reconnects with
// Last-Event-ID gets exactly what it missed while away, in order; of a
// message that came and went meanwhile it hears nothing.
func TestEventStreamResumesFromLastEventID(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	token, address := h.tokenInbox()
	s := h.openStream("/inboxes/"+token+"/events/", "")
	h.sendMail(address, "Subject: seen a\r\n\r\nx\r\n")
	a := s.next()
	h.sendMail(address, "Subject: seen b\r\n\r\nx\r\n")
	b := s.next()
	s.close()

	h.sendMail(address, "Subject: missed one\r\n\r\nx\r\n")
	h.sendMail(address, "Subject: missed two\r\n\r\nx\r\n")
	two := h.messageIDBySubject(token, "missed+two")
	h.expect(h.do("POST", "/inboxes/"+token+"/messages/"+a.Data["id"].(string)+"/read/", "{}"), 200, "")
	h.expect(h.do("DELETE", "/inboxes/"+token+"/messages/"+b.Data["id"].(string)+"/", ""), 204, "")
	h.expect(h.do("DELETE", "/inboxes/"+token+"/messages/"+two+"/", ""), 204, "")

	s = h.openStream("/inboxes/"+token+"/events/", b.ID)
	var got []string
	for range 3 {
		ev := s.next()
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
	fresh := h.openStream("/inboxes/"+token+"/events/", "")
	h.sendMail(address, "Subject: new\r\n\r\nx\r\n")
	if ev := fresh.next(); ev.Data["subject"] != "new" {
		t.Errorf("a fresh stream's first event: %+v", ev)
	}
	r := h.do("GET", "/inboxes/"+token+"/events/", "", "Last-Event-ID", "yesterday")
	h.expect(r, http.StatusBadRequest, "")
}

// TestEventStreamTellsAClientAwayTooLongToReload: the service remembers an
// inbox's last 64 deletions; a client that missed more is told to load
// the list afresh (reset), and the stream goes on. From 0, it holds
// nothing stale, and is sent what the inbox holds.
func TestEventStreamTellsAClientAwayTooLongToReload(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	token, address := h.tokenInbox()
	s := h.openStream("/inboxes/"+token+"/events/", "")
	const n = 70
	var ids []string
	var last sseEvent
	for i := range n {
		h.sendMail(address, "Subject: m"+strconv.Itoa(i)+"\r\n\r\nx\r\n")
		last = s.next()
		ids = append(ids, last.Data["id"].(string))
	}
	h.sendMail(address, "Subject: kept\r\n\r\nx\r\n")
	kept := s.next()
	s.close()
	for _, id := range ids {
		h.expect(h.do("DELETE", "/inboxes/"+token+"/messages/"+id+"/", ""), 204, "")
	}

	s = h.openStream("/inboxes/"+token+"/events/", kept.ID)
	ev := s.next()
	if ev.Name != "reset" || len(ev.Data) != 0 || ev.ID == "" {
		t.Fatalf("resuming after %d deletions: %+v, want reset with an id and {}", n, ev)
	}
	if r, _ := strconv.ParseUint(ev.ID, 10, 64); r <= mustUint(t, kept.ID) {
		t.Errorf("reset id %s is not past the resumed one %s", ev.ID, kept.ID)
	}
	h.sendMail(address, "Subject: after\r\n\r\nx\r\n")
	after := s.next()
	if after.Name != "message" || after.Data["subject"] != "after" {
		t.Errorf("after the reset: %+v, want the next message", after)
	}

	// Resuming from a point the removals still cover is exact, as before.
	s = h.openStream("/inboxes/"+token+"/events/", after.ID)
	h.sendMail(address, "Subject: later\r\n\r\nx\r\n")
	if ev := s.next(); ev.Name != "message" || ev.Data["subject"] != "later" {
		t.Errorf("resumed after the reset: %+v, want the next message", ev)
	}

	// From 0: every message the inbox holds, and no reset.
	s = h.openStream("/inboxes/"+token+"/events/", "0")
	var got []string
	for range 3 {
		ev := s.next()
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
	h := newHarness(t)
	token, address := h.tokenInbox()
	h.sendMail(address, "Subject: before\r\n\r\nx\r\n")
	h.messageIDBySubject(token, "before")
	// One after the other: each stream hears of the other's mail.
	for _, from := range []string{"18446744073709551615", "1000000"} {
		t.Run(from, func(t *testing.T) {
			h := h.as(t)
			s := h.openStream("/inboxes/"+token+"/events/", from)
			ev := s.next()
			if ev.Name != "reset" || len(ev.Data) != 0 || ev.ID == "" || ev.ID == from {
				t.Fatalf("resuming from %s: %+v, want reset with the inbox's own id", from, ev)
			}
			subject := "after-" + from
			h.sendMail(address, "Subject: "+subject+"\r\n\r\nx\r\n")
			if ev := s.next(); ev.Name != "message" || ev.Data["subject"] != subject {
				t.Errorf("after the reset: %+v, want the next message", ev)
			}
			s.close()
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
	h := newHarness(t, func(c *config.Config) { c.MinInboxTTL = time.Second })
	h.svc.API.SetKeepAlive(200 * time.Millisecond)
	in := h.createInboxA(`{"domain_id":1,"ttl":2}`)
	s := h.openStream("/api/inboxes/"+in["id"].(string)+"/events/", "")
	comments := 0
	for {
		ev, ok := <-s.events
		if !ok {
			t.Fatal("the stream ended without an expired event")
		}
		if ev.Comment {
			comments++
			continue
		}
		if ev.Name != "expired" || ev.Data["reason"] != "expired" || ev.Data["id"] != in["id"] {
			t.Errorf("at expiry: %+v", ev)
		}
		break
	}
	if comments < 3 {
		t.Errorf("%d keep-alive comments in 2 s at one per 200 ms", comments)
	}
	if !s.ended() {
		t.Error("the stream goes on after its inbox expired")
	}
}

// TestEventStreamsCostNoConsumersAndAreCapped: streams are fed by the
// process's hub, not a NATS consumer each, and count against
// --max-waiters; family A's stream keeps family A's auth.
func TestEventStreamsCostNoConsumersAndAreCapped(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.MaxWaiters = 20; c.RequireToken = true })
	token, address := h.tokenInbox()
	before := h.consumers()
	var streams []*sse
	for range 20 {
		streams = append(streams, h.openStream("/inboxes/"+token+"/events/", ""))
	}
	if n := h.consumers(); n != before {
		t.Errorf("20 streams made %d consumers", n-before)
	}
	r := h.do("GET", "/inboxes/"+token+"/events/", "")
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("a 21st stream: %d %s", r.Status, r.Body)
	}
	h.sendMail(address, "Subject: to all\r\n\r\nx\r\n")
	for _, s := range streams {
		if ev := s.next(); ev.Data["subject"] != "to all" {
			t.Errorf("a stream got %+v", ev)
		}
		s.close()
	}

	// Family A's stream, under --require-token, needs the token.
	r = h.do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, "Content-Type", jsonCT, "Authorization", "Token "+testToken)
	id := r.JSON(t)["id"].(string)
	h.expect(h.do("GET", "/api/inboxes/"+id+"/events/", ""), 401, `{"detail":"Authentication credentials were not provided."}`)
	a := h.openStream("/api/inboxes/"+id+"/events/", "", "Authorization", "Token "+testToken)
	h.sendMail(r.JSON(t)["email"].(string), "From: sender@example.com\r\nSubject: to a\r\n\r\nx\r\n")
	if ev := a.next(); ev.Name != "message" || ev.Data["subject"] != "to a" || ev.Data["from_email"] != "sender@example.com" {
		t.Errorf("family A's stream: %+v", ev)
	}
}
