package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
	"tempmail/wire"
)

// TestPostfixRetriesWhatAFaultRuleRefused: the fault rules of issue 44
// against a real MTA, Postfix, in front of `tempmail serve` as
// docs/DEPLOY.md sets one up (postfix_test.go). For a 451 at RCPT (twice),
// a 421 at RCPT, greylisting, a 451 after the data and a connection
// dropped in the middle of the data, Postfix defers the message, logging
// tempmail's reply (or the lost connection), tries again, and the next
// try taken is stored; the inbox's attempt log shows each try and the
// one store, and the inbox holds the message once.
func TestPostfixRetriesWhatAFaultRuleRefused(t *testing.T) {
	t.Parallel()
	postfixBin(t) // skipped (or failed under CI) before tempmail starts
	_, base, smtpAddr := runServeSMTP(t, t.TempDir(), "--auth-checks=false")

	type try struct {
		command string
		code    int
	}
	for _, c := range []struct {
		name, rule string
		// deferred is what Postfix logs of each deferral (the status's
		// reason); tries are the attempts tempmail logs, oldest first.
		deferred string
		tries    []try
		lines    int // of the message's body, 52 bytes each
		// greylist: the first try is refused, and each retry for this
		// long after it, however many Postfix makes meanwhile.
		greylist time.Duration
	}{{
		name:     "451 at RCPT twice",
		rule:     `{"command": "RCPT", "reply": "451 4.7.1 try again later", "times": 2}`,
		deferred: "status=deferred (host 127.0.0.1[127.0.0.1] said: 451 4.7.1 try again later (in reply to RCPT TO command))",
		tries:    []try{{"RCPT", 451}, {"RCPT", 451}, {"AFTER_DATA", 250}},
	}, {
		name:     "421 at RCPT",
		rule:     `{"command": "RCPT", "reply": "421 4.3.2 closing, try again later", "times": 1}`,
		deferred: "status=deferred (host 127.0.0.1[127.0.0.1] said: 421 4.3.2 closing, try again later (in reply to RCPT TO command))",
		tries:    []try{{"RCPT", 421}, {"AFTER_DATA", 250}},
	}, {
		// Greylisting: Postfix's retries a second apart are refused
		// until two seconds have passed since its first try.
		name:     "greylisted at RCPT",
		rule:     `{"command": "RCPT", "greylist": "2s"}`,
		deferred: "status=deferred (host 127.0.0.1[127.0.0.1] said: 451 4.7.1 Greylisted, try again later (in reply to RCPT TO command))",
		tries:    []try{{"RCPT", 451}, {"AFTER_DATA", 250}},
		greylist: 2 * time.Second,
	}, {
		// After the whole message, in place of the 250: nothing stored.
		name:     "451 after the data",
		rule:     `{"command": "AFTER_DATA", "reply": "451 4.3.0 not stored, try again", "times": 1}`,
		deferred: "status=deferred (host 127.0.0.1[127.0.0.1] said: 451 4.3.0 not stored, try again (in reply to end of DATA command))",
		tries:    []try{{"AFTER_DATA", 451}, {"AFTER_DATA", 250}},
	}, {
		// A small message is all in the socket's buffers when tempmail
		// drops the connection: Postfix finds out waiting for the reply to
		// its end of data, and warns that the message may arrive twice.
		name:     "connection dropped mid-DATA, small message",
		rule:     `{"command": "DATA", "close": true, "times": 1}`,
		deferred: "status=deferred (lost connection with 127.0.0.1[127.0.0.1] while sending end of data -- message may be sent more than once)",
		tries:    []try{{"DATA", 0}, {"AFTER_DATA", 250}},
	}, {
		// A message of 8 MB, more than the kernel buffers of a loopback
		// connection hold (4 MiB to send, 128 KiB to receive until the
		// receiver reads): Postfix is still sending it.
		name:     "connection dropped mid-DATA, large message",
		rule:     `{"command": "DATA", "close": true, "times": 1}`,
		deferred: "status=deferred (lost connection with 127.0.0.1[127.0.0.1] while sending message body)",
		tries:    []try{{"DATA", 0}, {"AFTER_DATA", 250}},
		lines:    160000,
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			in := createTokenInbox(t, base)
			code, body := call(t, "POST", base+"/inboxes/"+in.Token+"/faults/", c.rule)
			if code != http.StatusCreated {
				t.Fatalf("POST faults: %d %s", code, body)
			}
			var rule wire.FaultRule
			if err := json.Unmarshal(body, &rule); err != nil || rule.ID == "" {
				t.Fatalf("rule %s: %v", body, err)
			}
			_, domain, _ := strings.Cut(in.Address, "@")
			pf := startPostfix(t, domain, smtpAddr)
			started := time.Now()

			// At least 2 KiB of data, so that a drop mid-DATA (after 512
			// bytes) is mid-message.
			from := "app@sender.example"
			raw := "From: " + from + "\r\nTo: " + in.Address + "\r\nSubject: Your code\r\n\r\n" +
				strings.Repeat("Your code is 424242. This line pads the message.\r\n", max(c.lines, 40))
			queueID := pf.inject(t, from, in.Address, raw)

			// Until the message is in the inbox, tempmail logged every try
			// and Postfix its delivery, flushing Postfix's queue meanwhile.
			var list []servicetest.Summary
			var tries []wire.Attempt
			var held string // postqueue -p while the message waited, if seen
			eventually.Nil(t, "Postfix to deliver after its retries", func() error {
				pf.flush(t)
				list = listMessages(t, base, in.Token)
				tries = attemptsOf(t, base, in.Token)
				queue := pf.queue(t)
				if held == "" && strings.Contains(queue, queueID) && strings.Contains(queue, "(") {
					held = queue
				}
				sent := strings.Contains(strings.Join(pf.logOf(queueID), "\n"), "status=sent")
				if len(list) == 0 || len(tries) == 0 || tries[0].Code != 250 || !sent {
					return fmt.Errorf("%d messages, %d attempts, Postfix sent: %v; Postfix's queue:\n%s", len(list), len(tries), sent, queue)
				}
				return nil
			})
			delivered := time.Since(started)

			if len(list) != 1 || list[0].Subject != "Your code" {
				t.Fatalf("the inbox holds %+v, want the message once", list)
			}
			wantTries := c.tries
			if c.greylist > 0 && len(tries) > len(c.tries) { // refused more than once
				wantTries = append(slices.Repeat(c.tries[:1], len(tries)-1), c.tries[1:]...)
			}
			if len(tries) != len(wantTries) {
				t.Fatalf("%d attempts logged, want %d: %+v", len(tries), len(wantTries), tries)
			}
			if c.greylist > 0 {
				first, last, stored := tries[len(tries)-1].At, tries[1].At, tries[0].At
				if last.Sub(first.Time) >= c.greylist || stored.Sub(first.Time) < c.greylist {
					t.Errorf("greylisted for %v: refused from %v to %v, stored at %v",
						c.greylist, first.Format(time.StampMilli), last.Format(time.StampMilli), stored.Format(time.StampMilli))
				}
			}
			for i, want := range wantTries {
				a := tries[len(tries)-1-i] // the log is newest first
				client := "<nil>"
				if a.Client != nil {
					client = *a.Client
				}
				ruleID, messageID := "", ""
				if a.RuleID != nil {
					ruleID = *a.RuleID
				}
				if a.MessageID != nil {
					messageID = *a.MessageID
				}
				wantRule, wantMessage := rule.ID, ""
				if want.code == 250 {
					wantRule, wantMessage = "", list[0].ID
				}
				if a.Command != want.command || a.Code != want.code || ruleID != wantRule || messageID != wantMessage ||
					a.From != from || client != "127.0.0.1" {
					t.Errorf("try %d: %s %d (reply %q) rule %q message %q from %s client %s; want %s %d rule %q message %q",
						i+1, a.Command, a.Code, a.Reply, ruleID, messageID, a.From, client, want.command, want.code, wantRule, wantMessage)
				}
				// What tempmail logged it answered is what Postfix heard.
				if want.code >= 400 && (a.Reply == "" || !strings.Contains(c.deferred, "said: "+a.Reply+" (")) {
					t.Errorf("try %d: tempmail logged the reply %q, Postfix %q", i+1, a.Reply, c.deferred)
				}
			}

			// Postfix shows each deferral with tempmail's reply, then one
			// delivery, and holds nothing more.
			lines := pf.logOf(queueID)
			var deferrals, sent []string
			for _, line := range lines {
				switch {
				case strings.Contains(line, "status=deferred"):
					deferrals = append(deferrals, line)
				case strings.Contains(line, "status=sent"):
					sent = append(sent, line)
				}
			}
			if len(deferrals) != len(wantTries)-1 || len(sent) != 1 {
				t.Errorf("Postfix logged %d deferrals and %d deliveries, want %d and 1:\n%s",
					len(deferrals), len(sent), len(wantTries)-1, strings.Join(lines, "\n"))
			}
			for _, line := range deferrals {
				if !strings.Contains(line, c.deferred) {
					t.Errorf("Postfix's deferral says\n%s\nwant %q", line, c.deferred)
				}
			}
			if len(sent) == 1 && !strings.Contains(sent[0], "relay=127.0.0.1[127.0.0.1]:"+portOf(smtpAddr)) {
				t.Errorf("Postfix delivered elsewhere: %s", sent[0])
			}
			if q := pf.queue(t); !strings.Contains(q, "Mail queue is empty") {
				t.Errorf("Postfix still holds mail:\n%s", q)
			}
			t.Logf("delivered %v after Postfix took it (%v in all); Postfix's log of %s:\n%s\npostqueue -p between tries:\n%s",
				delivered.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), queueID, strings.Join(append(deferrals, sent...), "\n"), held)
		})
	}
}

// attemptsOf is the attempt log of the token's inbox, newest first.
func attemptsOf(t *testing.T, base, token string) []wire.Attempt {
	t.Helper()
	code, body := call(t, "GET", base+"/inboxes/"+token+"/attempts/", "")
	if code != http.StatusOK {
		t.Fatalf("GET attempts: %d %s", code, body)
	}
	var tries []wire.Attempt
	if err := json.Unmarshal(body, &tries); err != nil {
		t.Fatalf("attempts %s: %v", body, err)
	}
	return tries
}
