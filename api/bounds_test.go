package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"tempmail/service/apitest"
	"testing"
)

// TestLongAndStrangeInputsNeverReachNATS sends every endpoint that takes a
// path parameter, query value or header the longest and strangest values
// an attacker would: each is answered in its family's shape, and the
// service goes on working. A 5,000-character token once made the NATS
// client send a subject over the server's control line limit, and the
// server closed the connection for good.
func TestLongAndStrangeInputsNeverReachNATS(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	token, address := h.TokenInbox()
	long := strings.Repeat("A", 5000)
	huge := strings.Repeat("a", 64<<10)
	dots := strings.Repeat("a.", 2000) + "a"
	id := "0190f0e0-0000-7000-8000-000000000000"
	cases := []struct {
		method, path string
		status       int
		field        string // the body's error field
	}{
		{"GET", "/inboxes/" + long + "/messages/", 404, "error"},
		{"GET", "/inboxes/" + huge + "/messages/", 404, "error"},
		{"GET", "/inboxes/" + long + "/latest/", 404, "error"},
		{"GET", "/inboxes/" + long + "/otp/", 404, "error"},
		{"GET", "/inboxes/" + url.PathEscape("t.*") + "/latest/", 404, "error"},
		{"GET", "/inboxes/" + url.PathEscape("a b\x00>") + "/messages/", 404, "error"},
		{"GET", "/inboxes/" + token + "/messages/" + long + "/", 404, "error"},
		{"GET", "/inboxes/" + token + "/latest/?after=" + long, 400, "error"},
		{"GET", "/inboxes/" + token + "/latest/?wait=" + long, 400, "error"},
		{"GET", "/inboxes/" + token + "/otp/?pattern=" + long, 400, "error"},
		{"GET", "/address/latest/?address=" + long + "@tempmail.test", 404, "error"},
		{"GET", "/address/latest/?address=" + url.QueryEscape(dots+"@"+dots), 404, "error"},
		{"GET", "/address/latest/?address=" + huge, 404, "error"},
		{"GET", "/api/inboxes/" + long + "/", 404, "detail"},
		{"GET", "/api/inboxes/" + long + "/emails/", 404, "detail"},
		{"GET", "/api/emails/" + long + "/", 404, "detail"},
		{"GET", "/api/emails/" + long + "/raw/", 404, "detail"},
		{"GET", "/api/attachments/" + id + "-" + long + "/download/", 404, "detail"},
		{"GET", "/api/attachments/" + long + "/download/", 404, "detail"},
		{"GET", "/api/mailstore/mailbox/" + long + "/", 404, "error"},
		{"GET", "/api/mailstore/mailbox/" + dots + "/", 404, "error"},
		{"GET", "/api/mailstore/mailbox/" + huge + "/", 404, "error"},
		{"GET", "/api/mailstore/mailbox/x/" + long + ".eml/", 404, "error"},
		{"POST", "/api/create-temp-email/", 400, "error"},
	}
	// All at once, and all answered before the connection is looked at.
	t.Run("requests", func(t *testing.T) {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s %.40s", c.method, c.path), func(t *testing.T) {
				t.Parallel()
				h := h.As(t)
				body := ""
				if c.method == "POST" {
					body = `{"email_name":"` + long + `"}`
				}
				r := h.Do(c.method, c.path, body, "X-Read-Key", long, "Authorization", "Token "+long)
				if r.Status != c.status {
					t.Fatalf("status %d, want %d; body %.200s", r.Status, c.status, r.Body)
				}
				if _, ok := r.JSON(t)[c.field]; !ok {
					t.Errorf("body %.200s has no %q", r.Body, c.field)
				}
			})
		}
	})
	// The webhook's recipients reach the views too.
	r := h.Do("POST", "/api/webhook/email/?to="+long+"@tempmail.test&to="+huge, "Subject: x\r\n\r\nx\r\n",
		"Authorization", "Token "+apitest.TestToken, "Content-Type", "message/rfc822")
	h.Expect(r, http.StatusNotFound, `{"error":"Inbox not found or expired"}`)

	// The connection to NATS is still there, and the service still serves.
	if !h.Service.Node.Conn.IsConnected() {
		t.Fatalf("the NATS connection is %v after the requests: %v", h.Service.Node.Conn.Status(), h.Service.Node.Conn.LastError())
	}
	h.SendMail(address, "Subject: still here\r\n\r\nhello\r\n")
	if got := h.WaitLatest(token, ""); got["subject"] != "still here" {
		t.Errorf("latest after the requests: %v", got)
	}
}
