package tokenapi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// The one call from a CI job: a rule refusing the first two
// deliveries at RCPT with 451 4.7.1; a real SMTP client gets the reply
// twice, the third delivery is stored, and the attempt log lists the
// three, newest first.
func TestAFaultRuleRefusesTheFirstTwoDeliveries(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	created := h.Do("POST", "/inboxes/"+token+"/faults/", `{"command": "RCPT", "reply": "451 4.7.1 try again later", "times": 2}`)
	if created.Status != 201 {
		t.Fatalf("POST faults: %d %s", created.Status, created.Body)
	}
	rule := created.JSON(t)
	id, _ := rule["id"].(string)
	if len(id) != 36 || rule["command"] != "RCPT" || rule["reply"] != "451 4.7.1 try again later" || rule["times"] != 2.0 {
		t.Fatalf("rule %s", created.Body)
	}
	raw := "From: app@example.com\r\nSubject: Sign-up\r\n\r\nYour code is 424242.\r\n"
	for i := range 2 {
		err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw)
		if !refused(err, 451, "4.7.1 try again later") {
			t.Fatalf("delivery %d: %v, want 451 4.7.1 try again later", i+1, err)
		}
	}
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw); err != nil {
		t.Fatalf("third delivery: %v", err)
	}
	latest := h.WaitLatest(token, "")

	var attempts []map[string]any
	if err := json.Unmarshal(h.Do("GET", "/inboxes/"+token+"/attempts/", "").Body, &attempts); err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 3 {
		t.Fatalf("attempts: %v", attempts)
	}
	want := []struct {
		code            float64
		rule, messageID any
	}{{250, nil, latest["id"]}, {451, id, nil}, {451, id, nil}}
	for i, a := range attempts {
		if a["code"] != want[i].code || a["rule_id"] != want[i].rule || a["message_id"] != want[i].messageID ||
			a["from"] != "app@example.com" || a["client"] != "127.0.0.1" || a["at"] == nil {
			t.Errorf("attempt %d (newest first): %v; want code %v, rule %v, message %v", i, a, want[i].code, want[i].rule, want[i].messageID)
		}
	}
	if attempts[1]["command"] != "RCPT" || attempts[0]["command"] != "AFTER_DATA" {
		t.Errorf("commands: %v, %v", attempts[0]["command"], attempts[1]["command"])
	}
	var rules []map[string]any
	_ = json.Unmarshal(h.Do("GET", "/inboxes/"+token+"/faults/", "").Body, &rules)
	if len(rules) != 1 || rules[0]["fired"] != 2.0 {
		t.Errorf("rules after: %v", rules)
	}
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/faults/"+id+"/", ""), 204, "")
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/faults/"+id+"/", ""), 404, "")
	h.Expect(h.Do("GET", "/inboxes/"+token+"/faults/", ""), 200, "[]")
}

// Every action at every command it may act at, with net/smtp: a reply
// after the data (nothing stored), every other attempt, the connection
// closed at RCPT and mid-message, and a sender pattern.
func TestFaultRulesActAsAsked(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	addRule := func(token, body string) string {
		t.Helper()
		r := h.Do("POST", "/inboxes/"+token+"/faults/", body)
		if r.Status != 201 {
			t.Fatalf("POST faults %s: %d %s", body, r.Status, r.Body)
		}
		return r.JSON(t)["id"].(string)
	}
	send := func(from, to string) error {
		return servicetest.TrySend(h.Service.SMTPAddr(), from, to, "Subject: x\r\n\r\n"+strings.Repeat("line of the body\r\n", 200))
	}
	messages := func(token string) int {
		var list []any
		_ = json.Unmarshal(h.Do("GET", "/inboxes/"+token+"/messages/", "").Body, &list)
		return len(list)
	}

	t.Run("a reply after the data stores nothing", func(t *testing.T) {
		token, addr := h.TokenInbox()
		addRule(token, `{"command": "AFTER_DATA", "reply": "552 5.3.4 message too big for this test", "times": 1}`)
		if err := send("a@example.com", addr); !refused(err, 552, "5.3.4 message too big for this test") {
			t.Fatalf("got %v", err)
		}
		if n := messages(token); n != 0 {
			t.Fatalf("%d messages stored after a refusal", n)
		}
		if err := send("a@example.com", addr); err != nil {
			t.Fatalf("the second delivery: %v", err)
		}
	})
	t.Run("every second attempt", func(t *testing.T) {
		token, addr := h.TokenInbox()
		addRule(token, `{"command": "RCPT", "reply": "450 4.2.1 busy", "every": 2}`)
		var got []bool
		for range 4 {
			got = append(got, send("a@example.com", addr) == nil)
		}
		if fmt.Sprint(got) != "[true false true false]" {
			t.Fatalf("accepted %v; want every second refused", got)
		}
	})
	t.Run("closed at RCPT and mid-message", func(t *testing.T) {
		for _, cmd := range []string{"RCPT", "DATA"} {
			token, addr := h.TokenInbox()
			addRule(token, `{"command": "`+cmd+`", "close": true, "times": 1}`)
			err := send("a@example.com", addr)
			if err == nil || strings.Contains(err.Error(), "250") {
				t.Fatalf("%s: a closed connection answered %v", cmd, err)
			}
			var attempts []map[string]any
			_ = json.Unmarshal(h.Do("GET", "/inboxes/"+token+"/attempts/", "").Body, &attempts)
			if len(attempts) != 1 || attempts[0]["code"] != 0.0 || attempts[0]["command"] != cmd {
				t.Fatalf("%s: attempts %v", cmd, attempts)
			}
			if err := send("a@example.com", addr); err != nil {
				t.Fatalf("%s: the retry: %v", cmd, err)
			}
		}
	})
	t.Run("only the senders it names", func(t *testing.T) {
		token, addr := h.TokenInbox()
		addRule(token, `{"command": "RCPT", "reply": "550 5.7.1 not from you", "from": "*@blocked.example"}`)
		if err := send("x@blocked.example", addr); !refused(err, 550, "5.7.1 not from you") {
			t.Fatalf("a matching sender: %v", err)
		}
		if err := send("x@fine.example", addr); err != nil {
			t.Fatalf("another sender: %v", err)
		}
	})
}

// Bad rules are refused with a 400 that names the field, and an inbox
// takes at most 10 rules.
func TestBadFaultRulesAreRefused(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, _ := h.TokenInbox()
	for body, want := range map[string]string{
		`{}`:                                                            "command is required",
		`{"command": "MAIL", "reply": "451 x"}`:                         "before the recipient is known",
		`{"command": "RCPT", "reply": "250 ok"}`:                        "4xx or 5xx",
		`{"command": "RCPT"}`:                                           "reply is required",
		`{"command": "DATA", "reply": "451 4.3.0 x"}`:                   "AFTER_DATA",
		`{"command": "RCPT", "reply": "451 5.7.1 x"}`:                   "class",
		`{"command": "RCPT", "reply": "451 x", "delay": "2m"}`:          "delay",
		`{"command": "RCPT", "reply": "451 x", "times": 1, "every": 2}`: "at most one",
		`{"command": "RCPT", "reply": "451 x", "fraction": 2}`:          "fraction",
		`{"command": "RCPT", "reply": "451 \u0007"}`:                    "printable",
	} {
		r := h.Do("POST", "/inboxes/"+token+"/faults/", body)
		if r.Status != 400 || !strings.Contains(string(r.Body), want) {
			t.Errorf("%s: %d %s; want 400 saying %q", body, r.Status, r.Body, want)
		}
	}
	h.Expect(h.Do("POST", "/inboxes/nope/faults/", `{"command": "RCPT", "reply": "451 x"}`), 404, `{"error":"Inbox not found"}`)
	h.Expect(h.Do("DELETE", "/inboxes/"+token+"/faults/not-a-uuid/", ""), 404, "")
	for i := range 10 {
		if r := h.Do("POST", "/inboxes/"+token+"/faults/", `{"command": "RCPT", "reply": "451 x"}`); r.Status != 201 {
			t.Fatalf("rule %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	if r := h.Do("POST", "/inboxes/"+token+"/faults/", `{"command": "RCPT", "reply": "451 x"}`); r.Status != 403 ||
		!strings.Contains(string(r.Body), "10 fault rules") {
		t.Errorf("the 11th rule: %d %s", r.Status, r.Body)
	}
}

// refused says whether err is the SMTP reply code with text msg (the
// enhanced code and the text, as net/smtp reads them).
func refused(err error, code int, msg string) bool {
	var reply *textproto.Error
	return errors.As(err, &reply) && reply.Code == code && reply.Msg == msg
}

// The inbox's event stream tells each attempt its log shows, as it comes:
// a client waits on the stream for "the sender retried", not on a poll.
func TestTheEventStreamTellsAttempts(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	if r := h.Do("POST", "/inboxes/"+token+"/faults/", `{"command": "RCPT", "reply": "451 4.7.1 try again later", "times": 1}`); r.Status != 201 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	stream := h.OpenStream("/inboxes/"+token+"/events/", "")
	defer stream.Close()
	raw := "Subject: streamed\r\n\r\nhello\r\n"
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw); !refused(err, 451, "4.7.1 try again later") {
		t.Fatalf("first: %v", err)
	}
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw); err != nil {
		t.Fatalf("retry: %v", err)
	}
	var names []string
	var codes []any
	for len(names) < 3 {
		e := stream.Next()
		names = append(names, e.Name)
		codes = append(codes, e.Data["code"])
	}
	if fmt.Sprint(names) != "[attempt message attempt]" || codes[0] != 451.0 || codes[2] != 250.0 {
		t.Errorf("the stream told %v %v; want the refusal, the message and its store", names, codes)
	}
}

// An inbox's greylisting: the first attempt of a client and sender is
// refused, a retry after the rule's time is taken.
func TestAnInboxGreylists(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	if r := h.Do("POST", "/inboxes/"+token+"/faults/", `{"command": "RCPT", "greylist": "300ms"}`); r.Status != 201 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	raw := "Subject: grey\r\n\r\nhello\r\n"
	first := time.Now()
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw); !refused(err, 451, "4.7.1 Greylisted, try again later") {
		t.Fatalf("first: %v", err)
	}
	eventually.True(t, "a retry taken", func() bool {
		return servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw) == nil
	})
	if since := time.Since(first); since < 300*time.Millisecond {
		t.Errorf("taken %v after the first attempt", since)
	}
}
