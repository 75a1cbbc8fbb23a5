package api_test

import (
	"encoding/json"
	"errors"
	"net/smtp"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/apitest"
	"tempmail/service/servicetest"
)

// The service's fault rules act for everyone they match, so each test
// here has a service of its own.

func refusedWith(err error, code int, msg string) bool {
	var reply *textproto.Error
	return errors.As(err, &reply) && reply.Code == code && reply.Msg == msg
}

func serviceRule(t *testing.T, h *apitest.Harness, body string) string {
	t.Helper()
	r := h.Do("POST", "/api/faults/", body, admin...)
	if r.Status != 201 {
		t.Fatalf("POST /api/faults/ %s: %d %s", body, r.Status, r.Body)
	}
	return r.JSON(t)["id"].(string)
}

// The pause: a CONNECT rule answers every connection 421 in place
// of the greeting until it is deleted; then mail flows again.
func TestTheAdminPausesIntake(t *testing.T) {
	t.Parallel()
	h := apitest.New(t)
	token, addr := h.TokenInbox()
	id := serviceRule(t, h, `{"command": "CONNECT", "reply": "421 4.3.2 paused"}`)
	_, err := smtp.Dial(h.Service.SMTPAddr())
	if !refusedWith(err, 421, "4.3.2 paused") {
		t.Fatalf("a connection while paused: %v; want 421 4.3.2 paused", err)
	}
	var attempts []map[string]any
	_ = json.Unmarshal(h.Do("GET", "/api/attempts/", "", admin...).Body, &attempts)
	if len(attempts) != 1 || attempts[0]["command"] != "CONNECT" || attempts[0]["code"] != 421.0 || attempts[0]["rule_id"] != id {
		t.Errorf("attempts: %v", attempts)
	}
	h.Expect(h.Do("DELETE", "/api/faults/"+id+"/", "", admin...), 204, "")
	h.SendMail(addr, "Subject: after the pause\r\n\r\nhello\r\n")
	if m := h.WaitLatest(token, ""); m["subject"] != "after the pause" {
		t.Errorf("latest: %v", m)
	}
}

// Greylisting: the first attempt of a client, sender and recipient is
// refused with 451 4.7.1, and retries too until the rule's time has passed
// since it; then the message is stored, once.
func TestGreylistingTakesARetryAfterItsTime(t *testing.T) {
	t.Parallel()
	h := apitest.New(t)
	token, addr := h.TokenInbox()
	serviceRule(t, h, `{"command": "RCPT", "greylist": "500ms", "to": "`+addr+`"}`)
	raw := "Subject: greylisted\r\n\r\nhello\r\n"
	first := time.Now()
	err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw)
	if !refusedWith(err, 451, "4.7.1 Greylisted, try again later") {
		t.Fatalf("the first attempt: %v", err)
	}
	var accepted time.Time
	eventually.True(t, "a retry accepted", func() bool {
		err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw)
		if err != nil && !refusedWith(err, 451, "4.7.1 Greylisted, try again later") {
			t.Fatalf("a retry: %v", err)
		}
		accepted = time.Now()
		return err == nil
	})
	if accepted.Sub(first) < 500*time.Millisecond {
		t.Errorf("accepted %v after the first attempt; the rule says 500ms", accepted.Sub(first))
	}
	h.WaitLatest(token, "")
	var list []any
	_ = json.Unmarshal(h.Do("GET", "/inboxes/"+token+"/messages/", "").Body, &list)
	if len(list) != 1 {
		t.Errorf("%d messages; want the one", len(list))
	}
	// Another sender is a new triple: refused first.
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "other@example.com", addr, raw); !refusedWith(err, 451, "4.7.1 Greylisted, try again later") {
		t.Errorf("a new sender: %v", err)
	}
	var attempts []map[string]any
	_ = json.Unmarshal(h.Do("GET", "/api/attempts/?rcpt="+addr, "", admin...).Body, &attempts)
	if len(attempts) < 2 || attempts[0]["from"] != "other@example.com" || attempts[0]["to"] != addr || attempts[0]["code"] != 451.0 {
		t.Errorf("attempts at %s: %v", addr, attempts)
	}
}

// A rate per client at MAIL: beyond it, 421 4.7.0 and the connection
// closed; EHLO and a sender pattern at MAIL; a rule that closes at EHLO.
func TestServiceRulesAtTheEarlyCommands(t *testing.T) {
	t.Parallel()
	h := apitest.New(t)
	_, addr := h.TokenInbox()
	rate := serviceRule(t, h, `{"command": "MAIL", "rate": 2, "from": "*@fast.example"}`)
	for i := range 2 {
		if err := servicetest.TrySend(h.Service.SMTPAddr(), "a@fast.example", addr, "Subject: x\r\n\r\nx\r\n"); err != nil {
			t.Fatalf("message %d within the rate: %v", i+1, err)
		}
	}
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "a@fast.example", addr, "Subject: x\r\n\r\nx\r\n"); !refusedWith(err, 421, "4.7.0 Too much from your address, slow down") {
		t.Fatalf("beyond the rate: %v", err)
	}
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "a@slow.example", addr, "Subject: x\r\n\r\nx\r\n"); err != nil {
		t.Fatalf("another sender: %v", err)
	}
	h.Expect(h.Do("DELETE", "/api/faults/"+rate+"/", "", admin...), 204, "")

	// net/smtp says HELO after a refused EHLO: the rule answers both.
	serviceRule(t, h, `{"command": "EHLO", "reply": "554 5.7.1 not today", "times": 2}`)
	c, err := smtp.Dial(h.Service.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Hello("client.example"); !refusedWith(err, 554, "5.7.1 not today") {
		t.Errorf("EHLO: %v", err)
	}
	c.Close()
	serviceRule(t, h, `{"command": "EHLO", "close": true, "times": 1}`)
	c, err = smtp.Dial(h.Service.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Hello("client.example"); err == nil {
		t.Error("EHLO answered where the rule closes the connection")
	}
	c.Close()
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "a@fast.example", addr, "Subject: x\r\n\r\nx\r\n"); err != nil {
		t.Fatalf("after the rules were spent: %v", err)
	}
	// A rule is asked only where the server would go on: what it refuses
	// (a domain it does not serve, an address with no inbox) it refuses
	// as ever, whatever a rule for every recipient says.
	serviceRule(t, h, `{"command": "RCPT", "reply": "451 4.7.1 from the rule", "to": "*"}`)
	for rcpt, want := range map[string]string{
		"someone@elsewhere.example": "5.7.1 Relaying denied: domain not served here",
		"nobody-here@tempmail.test": "5.1.1 Mailbox unavailable",
	} {
		if err := servicetest.TrySend(h.Service.SMTPAddr(), "a@example.com", rcpt, "Subject: x\r\n\r\nx\r\n"); !refusedWith(err, 550, want) {
			t.Errorf("to %s: %v; want 550 %s", rcpt, err, want)
		}
	}
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "a@example.com", addr, "Subject: x\r\n\r\nx\r\n"); !refusedWith(err, 451, "4.7.1 from the rule") {
		t.Errorf("to the inbox: %v", err)
	}
}

// What a rule can cost others is bounded: 50 live rules for the service,
// 10 an inbox; and a rule that stalls one inbox's deliveries for a minute
// holds only that client's connection: another delivery, to another
// inbox, goes through meanwhile.
func TestOneInboxsRulesDoNotHoldUpOthers(t *testing.T) {
	t.Parallel()
	h := apitest.New(t)
	slow, slowAddr := h.TokenInbox()
	token, addr := h.TokenInbox()
	r := h.Do("POST", "/inboxes/"+slow+"/faults/", `{"command": "RCPT", "reply": "451 4.7.1 later", "delay": "60s"}`)
	if r.Status != 201 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	held := make(chan error, 1)
	go func() {
		held <- servicetest.TrySend(h.Service.SMTPAddr(), "a@example.com", slowAddr, "Subject: slow\r\n\r\nx\r\n")
	}()
	// The delayed attempt is counted (the rule matched it) before its
	// reply waits: then the other delivery is sent.
	eventually.True(t, "the delayed attempt counted", func() bool {
		var rules []map[string]any
		_ = json.Unmarshal(h.Do("GET", "/inboxes/"+slow+"/faults/", "").Body, &rules)
		return len(rules) == 1 && rules[0]["fired"] == 1.0
	})
	h.SendMail(addr, "Subject: not held\r\n\r\nx\r\n")
	h.WaitLatest(token, "")
	select {
	case err := <-held:
		t.Fatalf("the delayed delivery ended before the other was stored: %v", err)
	default:
	}
	// One rule holds at most two sessions at once: a second is held, a
	// third gets the reply at once (a relay bringing everyone's mail
	// keeps its other connections).
	held2 := make(chan error, 1)
	go func() {
		held2 <- servicetest.TrySend(h.Service.SMTPAddr(), "b@example.com", slowAddr, "Subject: slow\r\n\r\nx\r\n")
	}()
	eventually.True(t, "the second delayed attempt counted", func() bool {
		var rules []map[string]any
		_ = json.Unmarshal(h.Do("GET", "/inboxes/"+slow+"/faults/", "").Body, &rules)
		return len(rules) == 1 && rules[0]["fired"] == 2.0
	})
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "c@example.com", slowAddr, "Subject: slow\r\n\r\nx\r\n"); !refusedWith(err, 451, "4.7.1 later") {
		t.Fatalf("a third attempt while two are held: %v", err)
	}
	select {
	case err := <-held:
		t.Fatalf("the first delayed delivery ended: %v", err)
	case err := <-held2:
		t.Fatalf("the second delayed delivery ended: %v", err)
	default:
	}
	for i := range 50 {
		if r := h.Do("POST", "/api/faults/", `{"command": "RCPT", "reply": "451 x", "to": "nobody-`+strings.Repeat("x", i%3)+`@else.example"}`, admin...); r.Status != 201 {
			t.Fatalf("rule %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	if r := h.Do("POST", "/api/faults/", `{"command": "RCPT", "reply": "451 x"}`, admin...); r.Status != 403 || !strings.Contains(string(r.Body), "50 fault rules") {
		t.Errorf("the 51st rule: %d %s", r.Status, r.Body)
	}
	for body, want := range map[string]string{
		`{"command": "RCPT", "greylist": "2h"}`:                          "greylist",
		`{"command": "MAIL", "greylist": "1m"}`:                          "RCPT",
		`{"command": "RCPT", "rate": 5}`:                                 "CONNECT or MAIL",
		`{"command": "CONNECT", "reply": "421 x", "to": "a"}`:            "RCPT on",
		`{"command": "CONNECT", "reply": "421 x", "client": "nonsense"}`: "prefix",
	} {
		if r := h.Do("POST", "/api/faults/", body, admin...); r.Status != 400 || !strings.Contains(string(r.Body), want) {
			t.Errorf("%s: %d %s; want 400 saying %q", body, r.Status, r.Body, want)
		}
	}
}

// A tenant's rules (its key with the faults scope) act on the mail of its
// own inboxes alone: another tenant's inbox, and one of no tenant, take
// the same mail meanwhile. They act from RCPT on, at most 10 live, and a
// key without the scope may not make them.
func TestATenantsRulesActOnItsOwnMail(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	mine, other := h.NewTenant("faulty", ""), h.NewTenant("steady", "")
	key, _ := h.NewKey(mine, `["inboxes","faults"]`)
	otherKey, _ := h.NewKey(other, `["inboxes"]`)
	inbox := func(key string) (token, addr string) {
		r := h.Do("POST", "/inboxes/", "", "Authorization", "Bearer "+key)
		if r.Status != 201 {
			t.Fatalf("inbox: %d %s", r.Status, r.Body)
		}
		v := r.JSON(t)
		return v["token"].(string), v["address"].(string)
	}
	_, mineAddr := inbox(key)
	_, otherAddr := inbox(otherKey)
	_, nobodysAddr := h.TokenInbox()
	auth := []string{"Authorization", "Bearer " + key, "Content-Type", apitest.JSONType}
	r := h.Do("POST", "/api/faults/", `{"command": "RCPT", "reply": "452 4.2.2 mailbox full", "client": "127.0.0.0/8"}`, auth...)
	if r.Status != 201 {
		t.Fatalf("the tenant's rule: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	raw := "Subject: to all\r\n\r\nhello\r\n"
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", mineAddr, raw); !refusedWith(err, 452, "4.2.2 mailbox full") {
		t.Errorf("to the tenant's inbox: %v", err)
	}
	for _, addr := range []string{otherAddr, nobodysAddr} {
		if err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", addr, raw); err != nil {
			t.Errorf("to %s, not the tenant's: %v", addr, err)
		}
	}
	var attempts []map[string]any
	_ = json.Unmarshal(h.Do("GET", "/api/attempts/", "", auth...).Body, &attempts)
	if len(attempts) != 1 || attempts[0]["to"] != mineAddr || attempts[0]["rule_id"] != id {
		t.Errorf("the tenant's attempts: %v", attempts)
	}
	var service []any
	_ = json.Unmarshal(h.Do("GET", "/api/faults/", "", admin...).Body, &service)
	for _, f := range service {
		if f.(map[string]any)["id"] == id {
			t.Errorf("the tenant's rule is among the service's: %v", service)
		}
	}
	for body, want := range map[string]string{
		`{"command": "MAIL", "reply": "451 x"}`:    "before the recipient is known",
		`{"command": "CONNECT", "reply": "421 x"}`: "before the recipient is known",
	} {
		if r := h.Do("POST", "/api/faults/", body, auth...); r.Status != 400 || !strings.Contains(string(r.Body), want) {
			t.Errorf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	if r := h.Do("POST", "/api/faults/", `{"command": "RCPT", "reply": "451 x"}`, "Authorization", "Bearer "+otherKey); r.Status != 403 {
		t.Errorf("a key without the faults scope: %d %s", r.Status, r.Body)
	}
	for i := range 9 {
		if r := h.Do("POST", "/api/faults/", `{"command": "RCPT", "reply": "451 x", "to": "none@else.example"}`, auth...); r.Status != 201 {
			t.Fatalf("rule %d: %d %s", i+2, r.Status, r.Body)
		}
	}
	if r := h.Do("POST", "/api/faults/", `{"command": "RCPT", "reply": "451 x"}`, auth...); r.Status != 403 || !strings.Contains(string(r.Body), "10 fault rules") {
		t.Errorf("the 11th: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("DELETE", "/api/faults/"+id+"/", "", auth...), 204, "")
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "app@example.com", mineAddr, raw); err != nil {
		t.Errorf("after the rule's deletion: %v", err)
	}
}
