package tokenapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service/apitest"
	"tempmail/service/servicetest"
)

func TestTokenInboxC(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	h.Expect(h.Do("GET", "/inboxes/"+token+"/messages/", ""), 200, `[]`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/latest/", ""), 404, `{"error":"No messages"}`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/otp/", ""), 404, `{"error":"No code found"}`)
	for _, p := range []string{"/inboxes/nope/messages/", "/inboxes/nope/latest/", "/inboxes/nope/otp/",
		"/inboxes/nope/messages/0190f0f0-0000-7000-8000-000000000000/"} {
		h.Expect(h.Do("GET", p, ""), 404, `{"error":"Inbox not found"}`)
	}
	// Tokens that are subject wildcards or not key-shaped name no inbox:
	// a wildcard must never match someone else's.
	for _, tok := range []string{"*", ">", "%2A", "t.%2A", "a%20b", ".", "a..b", "%3E"} {
		h.Expect(h.Do("GET", "/inboxes/"+tok+"/messages/", ""), 404, `{"error":"Inbox not found"}`)
	}
	h.Expect(h.Do("POST", "/inboxes/", "x", "Content-Type", "text/plain"), 415, "")
	h.Expect(h.Do("POST", "/inboxes/", "{", "Content-Type", apitest.JSONType), 400, "")
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/latest/", ""), 405, "")

	h.SendMail(addr, "From: Bank <no-reply@bank.example>\r\nSubject: Sign-in\r\n\r\nYour one-time code is 246810. Ref 1234567.\r\n")
	first := h.WaitLatest(token, "")
	h.SendMail(addr, "From: Shop <shop@example.com>\r\nSubject: Code 135791 inside\r\nContent-Type: text/html\r\n\r\n<p>Order <b>ABC-778899</b> shipped, code 112233</p>\r\n")
	second := h.WaitLatest(token, first["id"].(string))
	if second["subject"] != "Code 135791 inside" || second["from"] != "shop@example.com" || second["from_name"] != "Shop" ||
		second["to"] != addr || !strings.Contains(second["html"].(string), "ABC-778899") || !strings.Contains(second["text"].(string), "ABC-778899") {
		t.Errorf("latest %v", second)
	}
	var list []map[string]any
	_ = json.Unmarshal(h.Do("GET", "/inboxes/"+token+"/messages", "").Body, &list)
	if len(list) != 2 || list[0]["id"] != second["id"] || list[1]["preview"] != "Your one-time code is 246810. Ref 1234567." ||
		list[0]["text"] != nil || list[0]["html"] != nil {
		t.Errorf("list %v", list)
	}
	m := h.Do("GET", "/inboxes/"+token+"/messages/"+first["id"].(string)+"/", "").JSON(t)
	if m["text"] != "Your one-time code is 246810. Ref 1234567.\n" || m["is_read"] != false {
		t.Errorf("message %v", m)
	}
	h.Expect(h.Do("GET", "/inboxes/"+token+"/messages/0190f0f0-0000-7000-8000-000000000000/", ""), 404, `{"error":"Message not found"}`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/messages/../../etc/", ""), 404, "")

	otp := func(query string) apitest.Response {
		return h.Do("GET", "/inboxes/"+token+"/otp/"+query, "")
	}
	// Newest first, subject before text.
	if v := otp("").JSON(t); v["otp"] != "135791" || v["message_id"] != second["id"] || v["subject"] != "Code 135791 inside" ||
		v["from"] != "shop@example.com" || v["received_at"] != second["received_at"] {
		t.Errorf("default pattern: %v", v)
	}
	if v := otp("?pattern=" + url.QueryEscape(`ABC-(\d+)`)).JSON(t); v["otp"] != "778899" {
		t.Errorf("capture group (from HTML rendered as text): %v", v)
	}
	if v := otp("?pattern=" + url.QueryEscape(`Ref \d{7}`)).JSON(t); v["otp"] != "Ref 1234567" || v["message_id"] != first["id"] {
		t.Errorf("whole match in an older message: %v", v)
	}
	if v := otp("?after=" + second["id"].(string)); v.Status != 404 {
		t.Errorf("nothing newer than the newest: %d", v.Status)
	}
	if v := otp("?after=" + first["id"].(string)).JSON(t); v["otp"] != "135791" {
		t.Errorf("after the first: %v", v)
	}
	h.Expect(otp("?pattern="+url.QueryEscape("zzz")), 404, `{"error":"No code found"}`)
	r := otp("?pattern=" + url.QueryEscape("(unclosed"))
	if r.Status != 400 || !strings.HasPrefix(r.JSON(t)["error"].(string), "invalid pattern: ") {
		t.Errorf("bad pattern: %d %s", r.Status, r.Body)
	}
	h.Expect(otp("?pattern="+strings.Repeat("a", 513)), 400, `{"error":"invalid pattern: longer than 512 bytes"}`)
	for _, q := range []string{"?wait=61", "?wait=-1", "?wait=soon", "?after=yesterday"} {
		if r := otp(q); r.Status != 400 {
			t.Errorf("%s: %d", q, r.Status)
		}
	}

	// address/latest
	al := func(q string) apitest.Response { return h.Do("GET", "/address/latest/"+q, "") }
	if v := al("?address=" + url.QueryEscape(strings.ToUpper(addr))).JSON(t); v["id"] != second["id"] {
		t.Errorf("address/latest %v", v)
	}
	h.Expect(al(""), 400, `{"error":"address is required"}`)
	h.Expect(al("?address=nobody@tempmail.test"), 404, `{"error":"Inbox not found"}`)
	h.Expect(al("?address=not-an-address"), 404, `{"error":"Inbox not found"}`)
	_, empty := h.TokenInbox()
	h.Expect(al("?address="+empty), 404, `{"error":"No messages"}`)
}

func TestReadKeyC(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.ReadKey = "s3cret-key" })
	token, addr := h.TokenInbox()
	for _, p := range []string{"/inboxes/" + token + "/latest/", "/inboxes/" + token + "/otp/", "/address/latest/?address=" + addr} {
		h.Expect(h.Do("GET", p, ""), 401, `{"error":"read key required"}`)
		h.Expect(h.Do("GET", p, "", "X-Read-Key", "wrong"), 403, `{"error":"invalid read key"}`)
		if r := h.Do("GET", p, "", "X-Read-Key", "s3cret-key"); r.Status != 404 {
			t.Errorf("%s with the key: %d %s, want 404 (nothing there yet)", p, r.Status, r.Body)
		}
	}
	// The key guards those three reads only.
	h.Expect(h.Do("GET", "/inboxes/"+token+"/messages/", ""), 200, `[]`)
	// An unknown token is not revealed before the key is checked.
	h.Expect(h.Do("GET", "/inboxes/nope/latest/", ""), 401, `{"error":"read key required"}`)
}

func TestExpiredTokenInboxC(t *testing.T) {
	t.Parallel()
	// The lifetime must be long enough for the mail to come before it
	// ends, and short enough to wait for. A loaded machine can take
	// seconds between making the inbox and the message's RCPT: when the
	// lifetime ran out first (the 550 says the inbox is gone), the test
	// tries again with a lifetime twice as long, rather than failing on
	// the machine's speed.
	for _, ttl := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second} {
		h := apitest.New(t, func(c *config.Config) { c.TokenInboxTTL = ttl })
		// The lifetime runs from when the service made the inbox, which
		// is before its answer comes: the time is taken before asking.
		made := time.Now()
		token, addr := h.TokenInbox()
		if err := servicetest.TrySend(h.Service.SMTPAddr(), "sender@example.com", addr, "Subject: in time\r\n\r\ncode 123456\r\n"); err != nil {
			if time.Since(made) >= ttl {
				t.Logf("the inbox's %v ran out before its mail came (%v); trying a longer lifetime", ttl, err)
				continue
			}
			t.Fatalf("SMTP to %s: %v", addr, err)
		}
		h.WaitLatest(token, "")
		eventually.True(t, "the inbox gone at its expiry", func() bool {
			return h.Do("GET", "/inboxes/"+token+"/messages/", "").Status == http.StatusNotFound
		})
		for _, p := range []string{"/inboxes/" + token + "/messages/", "/inboxes/" + token + "/latest/", "/inboxes/" + token + "/otp/"} {
			h.Expect(h.Do("GET", p, ""), 404, `{"error":"Inbox not found"}`)
		}
		h.Expect(h.Do("GET", "/address/latest/?address="+addr, ""), 404, `{"error":"Inbox not found"}`)
		return
	}
	t.Fatal("no lifetime up to 16 s was long enough for a message to come")
}

func TestWaitAnswersWhenTheMessageArrives(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it counts the requests held open
	token, addr := h.TokenInbox()
	// Without anything to wait for, wait=1 answers as without it after 1s.
	start := time.Now()
	h.Expect(h.Do("GET", "/inboxes/"+token+"/latest/?wait=1", ""), 404, `{"error":"No messages"}`)
	if time.Since(start) < 900*time.Millisecond {
		t.Errorf("wait=1 answered after %v", time.Since(start))
	}
	// Each wait is answered by the message it waits for: not by mail to
	// another inbox, which comes first, and not by its time running out.
	other, otherAddr := h.TokenInbox()
	after, otherAfter := "", ""
	for i, path := range []string{"/inboxes/" + token + "/latest/?wait=10", "/inboxes/" + token + "/otp/?wait=10",
		"/address/latest/?wait=10&address=" + addr} {
		done := h.Start("GET", path+"&after="+after, "")
		h.WaitHeld(1)
		h.SendMail(otherAddr, fmt.Sprintf("Subject: elsewhere %d\r\n\r\nyour code is 4440%02d\r\n", i, i))
		otherAfter = h.WaitLatest(other, otherAfter)["id"].(string) // there, and told to whoever waits for it
		code := fmt.Sprintf("5550%02d", i)
		h.SendMail(addr, fmt.Sprintf("Subject: message %d\r\n\r\nyour code is %s\r\n", i, code))
		select {
		case r := <-done:
			if r.Status != 200 || !strings.Contains(string(r.Body), code) {
				t.Errorf("%s: %d %s, want the message with %s", path, r.Status, r.Body, code)
			}
		case <-time.After(9 * time.Second):
			t.Fatalf("%s still held after the message arrived", path)
		}
		after = h.WaitLatest(token, after)["id"].(string)
	}
}

// Read-your-writes through SMTP: once the 250 has come, the message is
// in every list, with no waiting (docs/API.md, "Conventions": "A message is readable when the
// sender gets SMTP's 250").
func TestMailIsReadableAtThe250(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for i := range 20 {
		token, address := h.TokenInbox()
		h.SendMail(address, "Subject: at once "+strconv.Itoa(i)+"\r\n\r\nhello\r\n")
		if r := h.Do("GET", "/inboxes/"+token+"/messages/", ""); r.Status != http.StatusOK || r.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("message %d, read right after its 250: %d %s (total %q)", i, r.Status, r.Body, r.Header.Get("X-Total-Count"))
		}
	}
}
