package api_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"tempmail/config"
	"tempmail/service/apitest"
)

func TestWebhookRawForms(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	raw := "From: Sender <s@example.com>\r\nSubject: raw hook\r\nMessage-ID: <raw-1@example.com>\r\n\r\nhello\r\n"
	r := h.Do("POST", "/api/webhook/email/?to="+addr+"&to=nobody@tempmail.test", raw,
		"Authorization", "Token "+apitest.TestToken, "Content-Type", "message/rfc822")
	if r.Status != http.StatusCreated {
		t.Fatalf("raw webhook: %d %s", r.Status, r.Body)
	}
	v := r.JSON(t)
	if v["success"] != true || v["message_id"] != "<raw-1@example.com>" || v["email_id"] == "" {
		t.Errorf("raw webhook answered %s", r.Body)
	}
	// The same bytes again: recognised, not stored twice, same email id.
	again := h.Do("POST", "/api/webhook/email?to="+addr, raw, "Authorization", "Token "+apitest.TestToken, "Content-Type", "message/rfc822")
	if again.Status != http.StatusCreated || again.JSON(t)["email_id"] != v["email_id"] {
		t.Errorf("repeated webhook: %d %s, want the first email id %v", again.Status, again.Body, v["email_id"])
	}
	h.Do("POST", "/api/webhook/email?to="+addr, "Subject: plain\r\n\r\nas text/plain\r\n",
		"Authorization", "Token "+apitest.TestToken, "Content-Type", "text/plain; charset=utf-8")

	list := h.List(token)
	if len(list) != 2 || list[0]["subject"] != "plain" || list[1]["subject"] != "raw hook" || list[1]["id"] != v["email_id"] {
		t.Errorf("inbox after webhooks: %v", list)
	}
}

func TestWebhookJSONForms(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 tiny"))
	body := fmt.Sprintf(`{"to":[%q],"from":"Ann <ann@example.com>","subject":"Built ✓","text":"code 112233","html":"<b>112233</b>",
		"attachments":[{"filename":"a.pdf","content_type":"application/pdf","data":%q}]}`, addr, pdf)
	r := h.Do("POST", "/api/webhook/email/", body, "Authorization", "Token "+apitest.TestToken, "Content-Type", "application/json")
	if r.Status != http.StatusCreated || !strings.HasPrefix(r.JSON(t)["message_id"].(string), "<") {
		t.Fatalf("JSON webhook: %d %s", r.Status, r.Body)
	}
	rawB64 := base64.StdEncoding.EncodeToString([]byte("From: raw@example.com\r\nSubject: raw in json\r\n\r\nx\r\n"))
	r = h.Do("POST", "/api/webhook/email/", fmt.Sprintf(`{"to":%q,"raw":%q}`, addr, rawB64),
		"Authorization", "Token "+apitest.TestToken, "Content-Type", "application/json")
	h.Expect(r, http.StatusCreated, "")

	list := h.List(token)
	if len(list) != 2 {
		t.Fatalf("inbox: %v", list)
	}
	if list[0]["subject"] != "raw in json" || list[1]["subject"] != "Built ✓" || list[1]["from"] != "ann@example.com" ||
		list[1]["from_name"] != "Ann" || list[1]["preview"] != "code 112233" {
		t.Errorf("inbox: %v", list)
	}
	atts := list[1]["attachments"].([]any)
	if len(atts) != 1 || atts[0].(map[string]any)["filename"] != "a.pdf" || atts[0].(map[string]any)["size"] != float64(13) {
		t.Errorf("attachments: %v", atts)
	}
}

func TestWebhookErrors(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	_, addr := h.TokenInbox()
	auth := []string{"Authorization", "Token " + apitest.TestToken, "Content-Type", "application/json"}

	r := h.Do("POST", "/api/webhook/email/", `{}`, "Content-Type", "application/json")
	h.Expect(r, 401, `{"detail":"Authentication credentials were not provided."}`)
	if r.Header.Get("WWW-Authenticate") != "Token" {
		t.Errorf("401 without WWW-Authenticate: Token")
	}
	h.Expect(h.Do("POST", "/api/webhook/email/", `{}`, "Authorization", "Token wrong", "Content-Type", "application/json"),
		401, `{"detail":"Invalid token."}`)
	h.Expect(h.Do("POST", "/api/webhook/email/", `{}`, "Authorization", "Bearer wrong"), 401, `{"detail":"Invalid token."}`)

	for _, c := range []struct{ body, want string }{
		{`{"from":"a@b.c","subject":"s","text":"t"}`, `{"error":"Missing required field: to"}`},
		{fmt.Sprintf(`{"to":%q,"subject":"s","text":"t"}`, addr), `{"error":"Missing required field: from"}`},
		{fmt.Sprintf(`{"to":%q,"from":"a@b.c","text":"t"}`, addr), `{"error":"Missing required field: subject"}`},
		{fmt.Sprintf(`{"to":%q,"from":"a@b.c","subject":"s"}`, addr), `{"error":"Missing required field: text"}`},
		{fmt.Sprintf(`{"to":%q,"raw":"***"}`, addr), `{"error":"raw is not valid base64"}`},
		{fmt.Sprintf(`{"to":%q,"from":"a@b.c","subject":"s","text":"t","attachments":[{"filename":"x","data":"@@"}]}`, addr),
			`{"error":"attachments[0].data is not valid base64"}`},
		{`{"to":"nobody@tempmail.test","from":"a@b.c","subject":"s","text":"t"}`, `{"error":"Inbox not found or expired"}`},
		{`{"to":"someone@gmail.com","from":"a@b.c","subject":"s","text":"t"}`, `{"error":"Inbox not found or expired"}`},
	} {
		t.Run(fmt.Sprintf("%.60s", c.body), func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			r := h.Do("POST", "/api/webhook/email/", c.body, auth...)
			want := 400
			if strings.Contains(c.want, "Inbox not found") {
				want = 404
			}
			h.Expect(r, want, c.want)
		})
	}
	if r := h.Do("POST", "/api/webhook/email/", `{"to": 5}`, auth...); r.Status != 400 {
		t.Errorf("to as a number: %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/webhook/email/", `{not json`, auth...); r.Status != 400 {
		t.Errorf("bad JSON: %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/webhook/email/?to="+addr, "no header block at all", "Authorization", "Token "+apitest.TestToken,
		"Content-Type", "message/rfc822"); r.Status != 400 {
		t.Errorf("not a message: %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/webhook/email/", "x=1", "Authorization", "Token "+apitest.TestToken,
		"Content-Type", "application/x-www-form-urlencoded"); r.Status != 415 {
		t.Errorf("form body: %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/webhook/email/?to="+addr, "Subject: x\r\n\r\nhi", "Authorization", "Token "+apitest.TestToken,
		"Content-Type", "message/rfc822"); r.Status != 201 {
		t.Errorf("sanity: %d %s", r.Status, r.Body)
	}
	if r := h.Do("GET", "/api/webhook/email/", "", "Authorization", "Token "+apitest.TestToken); r.Status != 405 || r.Header.Get("Allow") != "POST, OPTIONS" {
		t.Errorf("GET webhook: %d Allow %q", r.Status, r.Header.Get("Allow"))
	}
}

func TestWebhookSizeLimit(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.MaxMessageBytes = 4 << 10 })
	_, addr := h.TokenInbox()
	big := "Subject: big\r\n\r\n" + strings.Repeat("x", 5<<10)
	if r := h.Do("POST", "/api/webhook/email/?to="+addr, big, "Authorization", "Token "+apitest.TestToken, "Content-Type", "message/rfc822"); r.Status != 413 {
		t.Errorf("oversized raw: %d %s", r.Status, r.Body)
	}
	body := fmt.Sprintf(`{"to":%q,"from":"a@b.c","subject":"s","text":%q}`, addr, strings.Repeat("y", 5<<10))
	if r := h.Do("POST", "/api/webhook/email/", body, "Authorization", "Token "+apitest.TestToken, "Content-Type", "application/json"); r.Status != 413 {
		t.Errorf("oversized JSON message: %d %s", r.Status, r.Body)
	}
	// Counted where SMTP's refusals are.
	if n := h.Metric(`tempmail_messages_rejected_total{reason="too_large"}`); n != 2 {
		t.Errorf("refusals counted as too large: %v, want 2", n)
	}
}
