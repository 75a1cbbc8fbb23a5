package inboxapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service/apitest"
	"tempmail/service/servicetest"
)

func TestDomainsA(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	h.Expect(h.Do("GET", "/api/domains/", ""), 200,
		`[{"id":1,"name":"tempmail.test","is_active":true,"catch_all":false},{"id":2,"name":"other.test","is_active":true,"catch_all":false}]`)
	h.Expect(h.Do("GET", "/api/domains", ""), 200, "") // without the slash too, no redirect
	// POST is the admin's (api/domains_test.go); other methods are not served.
	r := h.Do("PUT", "/api/domains/", "{}", "Content-Type", apitest.JSONType)
	h.Expect(r, 405, `{"detail":"Method \"PUT\" not allowed."}`)
	if r.Header.Get("Allow") != "GET, HEAD, POST, OPTIONS" {
		t.Errorf("Allow %q", r.Header.Get("Allow"))
	}
}

func TestCreateInboxA(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	v := h.CreateInboxA(`{"domain_id": 2}`)
	email, _ := v["email"].(string)
	local, domain, _ := strings.Cut(email, "@")
	if len(local) != 10 || strings.Trim(local, "abcdefghijklmnopqrstuvwxyz0123456789") != "" || domain != "other.test" || v["domain"] != "other.test" {
		t.Errorf("email %q domain %v", email, v["domain"])
	}
	if v["ttl"] != float64(3600) || !apitest.IsUUID(v["id"].(string)) || v["access_token"] == "" {
		t.Errorf("inbox %v", v)
	}
	created, _ := time.Parse(time.RFC3339, v["created_at"].(string))
	expires, _ := time.Parse(time.RFC3339, v["expires_at"].(string))
	if expires.Sub(created) != time.Hour {
		t.Errorf("expires_at - created_at = %v, want 1h", expires.Sub(created))
	}
	if v := h.CreateInboxA(`{"domain_id": 1, "ttl": 60}`); v["ttl"] != float64(60) {
		t.Errorf("ttl %v", v["ttl"])
	}
	h.CreateInboxA(`{"domain_id": 1, "ttl": 604800}`)

	for _, c := range []struct {
		body   string
		status int
		want   string
	}{
		{`{}`, 400, `{"error":"domain_id is required"}`},
		{``, 400, `{"error":"domain_id is required"}`},
		{`{"ttl": 100}`, 400, `{"error":"domain_id is required"}`},
		{`{"domain_id": "1"}`, 400, `{"error":"domain_id must be an integer"}`},
		{`{"domain_id": 1.5}`, 400, `{"error":"domain_id must be an integer"}`},
		{`{"domain_id": true}`, 400, `{"error":"domain_id must be an integer"}`},
		{`{"domain_id": 99}`, 404, `{"error":"Domain not found or inactive"}`},
		{`{"domain_id": 1, "ttl": 59}`, 400, `{"error":"ttl must be an integer between 60 and 604800"}`},
		{`{"domain_id": 1, "ttl": 604801}`, 400, `{"error":"ttl must be an integer between 60 and 604800"}`},
		{`{"domain_id": 1, "ttl": "60"}`, 400, `{"error":"ttl must be an integer between 60 and 604800"}`},
		{`{"domain_id": 1, "ttl": 60.5}`, 400, `{"error":"ttl must be an integer between 60 and 604800"}`},
	} {
		t.Run("body "+c.body, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			h.Expect(h.Do("POST", "/api/inboxes/create_inbox/", c.body, "Content-Type", apitest.JSONType), c.status, c.want)
		})
	}
	if r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id": 1`, "Content-Type", apitest.JSONType); r.Status != 400 || r.JSON(t)["error"] == nil {
		t.Errorf("malformed JSON: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("POST", "/api/inboxes/create_inbox/", `domain_id=1`, "Content-Type", "application/x-www-form-urlencoded"),
		415, `{"detail":"Unsupported media type \"application/x-www-form-urlencoded\" in request."}`)
	if r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1,"x":"`+strings.Repeat("a", 1<<20)+`"}`, "Content-Type", apitest.JSONType); r.Status != 413 {
		t.Errorf("oversized body: %d %s", r.Status, r.Body)
	}
}

func TestInboxAndEmailsA(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	in := h.CreateInboxA(`{"domain_id": 1}`)
	id, addr, token := in["id"].(string), in["email"].(string), in["access_token"].(string)

	got := h.Do("GET", "/api/inboxes/"+id+"/", "").JSON(t)
	if got["email_count"] != float64(0) || got["email"] != addr || got["id"] != id {
		t.Errorf("inbox detail %v", got)
	}
	h.Expect(h.Do("GET", "/api/inboxes/"+id+"/emails/", ""), 200, `[]`)

	h.SendMail(addr, "From: Ann Example <ann@example.com>\r\nTo: "+addr+"\r\nSubject: first\r\n\r\nhello one\r\n")
	first := h.WaitLatest(token, "")
	h.SendMail(addr, apitest.MultipartMail(addr))
	second := h.WaitLatest(token, first["id"].(string))

	if got := h.Do("GET", "/api/inboxes/"+id, "").JSON(t); got["email_count"] != float64(2) {
		t.Errorf("email_count %v", got["email_count"])
	}
	var list []map[string]any
	_ = json.Unmarshal(h.Do("GET", "/api/inboxes/"+id+"/emails/", "").Body, &list)
	if len(list) != 2 || list[0]["id"] != second["id"] || list[1]["id"] != first["id"] {
		t.Fatalf("emails %v", list)
	}
	want := map[string]any{"id": first["id"], "from_email": "ann@example.com", "from_name": "Ann Example",
		"subject": "first", "received_at": first["received_at"], "is_read": false, "size": first["size"],
		"has_attachments": false, "preview": "hello one"}
	for k, v := range want {
		if list[1][k] != v {
			t.Errorf("summary %s = %v, want %v", k, list[1][k], v)
		}
	}
	if list[0]["has_attachments"] != true || len(list[1]) != len(want) {
		t.Errorf("summaries %v", list)
	}

	// Email detail, mark as read (idempotent), raw, attachment, delete.
	eid := second["id"].(string)
	e := h.Do("GET", "/api/emails/"+eid+"/", "").JSON(t)
	if e["inbox_id"] != id || e["message_id"] != "<cross-1@example.com>" || e["body_text"] != "Grüße, code 739201" ||
		e["body_html"] != "<p>Grüße, code <b>739201</b></p>" || e["is_read"] != false || fmt.Sprint(e["to"]) != "["+addr+"]" ||
		fmt.Sprint(e["cc"]) != "[cc@example.org]" || e["subject"] != "Prüfung ✓" || e["from_name"] != "Jörg" {
		t.Errorf("email detail %v", e)
	}
	atts := e["attachments"].([]any)
	att := atts[0].(map[string]any)
	if len(atts) != 1 || att["filename"] != "report.pdf" || att["content_type"] != "application/pdf" || att["file_size"] != float64(len([]byte(apitest.PDF))) {
		t.Fatalf("attachments %v", atts)
	}
	for range 2 {
		if r := h.Do("POST", "/api/emails/"+eid+"/mark_as_read/", "{}", "Content-Type", apitest.JSONType); r.Status != 200 || r.JSON(t)["is_read"] != true {
			t.Errorf("mark_as_read: %d %s", r.Status, r.Body)
		}
	}
	if r := h.Do("POST", "/api/emails/"+eid+"/mark_as_read", ""); r.Status != 200 {
		t.Errorf("mark_as_read without body: %d", r.Status)
	}
	if got := h.Do("GET", "/api/emails/"+eid, "").JSON(t); got["is_read"] != true {
		t.Error("read flag not visible right after mark_as_read")
	}
	raw := h.Do("GET", "/api/emails/"+eid+"/raw/", "")
	if raw.Status != 200 || raw.Header.Get("Content-Type") != "message/rfc822" ||
		!strings.HasPrefix(string(raw.Body), "Received: from ") || !strings.HasSuffix(string(raw.Body), apitest.MultipartMail(addr)) {
		t.Errorf("raw: %d %s %.200s", raw.Status, raw.Header.Get("Content-Type"), raw.Body)
	}
	dl := h.Do("GET", "/api/attachments/"+att["id"].(string)+"/download/", "")
	if dl.Status != 200 || string(dl.Body) != string([]byte(apitest.PDF)) || dl.Header.Get("Content-Type") != "application/pdf" ||
		dl.Header.Get("Content-Disposition") != `attachment; filename="report.pdf"` {
		t.Errorf("download: %d %q %v", dl.Status, dl.Body, dl.Header)
	}

	if r := h.Do("DELETE", "/api/emails/"+eid+"/", ""); r.Status != 204 || len(r.Body) != 0 {
		t.Errorf("delete email: %d %s", r.Status, r.Body)
	}
	for _, p := range []string{"/api/emails/" + eid + "/", "/api/emails/" + eid + "/raw/", "/api/attachments/" + att["id"].(string) + "/download/"} {
		h.Expect(h.Do("GET", p, ""), 404, `{"detail":"Not found."}`)
	}
	h.Expect(h.Do("DELETE", "/api/emails/"+eid+"/", ""), 404, `{"detail":"Not found."}`)
	if got := h.Do("GET", "/api/inboxes/"+id, "").JSON(t); got["email_count"] != float64(1) {
		t.Errorf("email_count after delete %v", got["email_count"])
	}

	// Deleting the inbox takes everything with it.
	if r := h.Do("DELETE", "/api/inboxes/"+id+"/", ""); r.Status != 204 || len(r.Body) != 0 {
		t.Errorf("delete inbox: %d %s", r.Status, r.Body)
	}
	for _, p := range []string{"/api/inboxes/" + id + "/", "/api/inboxes/" + id + "/emails/", "/api/emails/" + first["id"].(string) + "/"} {
		h.Expect(h.Do("GET", p, ""), 404, `{"detail":"Not found."}`)
	}
	h.Expect(h.Do("DELETE", "/api/inboxes/"+id+"/", ""), 404, `{"detail":"Not found."}`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/messages/", ""), 404, `{"error":"Inbox not found"}`)
}

func TestUnknownAndMalformedIDsA(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for _, id := range []string{"0190f0f0-0000-7000-8000-000000000000", "not-a-uuid", "..", "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
		"0190F0F0-0000-7000-8000-00000000000Z", strings.Repeat("a", 300)} {
		t.Run(fmt.Sprintf("%.40s", id), func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			for _, p := range []string{"/api/inboxes/%s/", "/api/inboxes/%s/emails/", "/api/emails/%s/", "/api/emails/%s/raw/", "/api/attachments/%s/download/"} {
				h.Expect(h.Do("GET", fmt.Sprintf(p, id), ""), 404, `{"detail":"Not found."}`)
			}
			h.Expect(h.Do("DELETE", "/api/inboxes/"+id+"/", ""), 404, `{"detail":"Not found."}`)
			h.Expect(h.Do("POST", "/api/emails/"+id+"/mark_as_read/", "{}", "Content-Type", apitest.JSONType), 404, `{"detail":"Not found."}`)
		})
	}
	h.Expect(h.Do("GET", "/api/no/such/path/", ""), 404, `{"detail":"Not found."}`)
}

func TestExpiredInboxA(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.MinInboxTTL = time.Second })
	in := h.CreateInboxA(`{"domain_id": 1, "ttl": 1}`)
	id, addr := in["id"].(string), in["email"].(string)
	// Taken while the inbox lives. A second is short on a busy machine:
	// a refusal counts only if the inbox had not expired by then.
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "s@example.com", addr, "Subject: before\r\n\r\nin time\r\n"); err != nil &&
		h.Do("GET", "/api/inboxes/"+id+"/", "").Status != http.StatusNotFound {
		t.Fatalf("SMTP to a live inbox: %v", err)
	}
	eventually.True(t, "the inbox gone at its expiry", func() bool {
		return h.Do("GET", "/api/inboxes/"+id+"/", "").Status == http.StatusNotFound
	})
	h.Expect(h.Do("GET", "/api/inboxes/"+id+"/", ""), 404, `{"detail":"Not found."}`)
	h.Expect(h.Do("GET", "/api/inboxes/"+id+"/emails/", ""), 404, `{"detail":"Not found."}`)
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "s@example.com", addr, "Subject: late\r\n\r\nx\r\n"); err == nil ||
		!strings.Contains(err.Error(), "550") {
		t.Errorf("SMTP to an expired inbox: %v, want 550", err)
	}
}

func TestRequireTokenA(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.RequireToken = true })
	paths := []struct{ method, path string }{
		{"GET", "/api/domains/"}, {"POST", "/api/inboxes/create_inbox/"}, {"GET", "/api/inboxes/0190f0f0-0000-7000-8000-000000000000/"},
		{"DELETE", "/api/inboxes/0190f0f0-0000-7000-8000-000000000000/"}, {"GET", "/api/emails/0190f0f0-0000-7000-8000-000000000000/"},
		{"GET", "/api/attachments/x/download/"},
	}
	for _, p := range paths {
		t.Run(p.method+" "+p.path, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			r := h.Do(p.method, p.path, "")
			h.Expect(r, 401, `{"detail":"Authentication credentials were not provided."}`)
			if r.Header.Get("WWW-Authenticate") != "Token" {
				t.Error("no WWW-Authenticate")
			}
			h.Expect(h.Do(p.method, p.path, "", "Authorization", "Token nope"), 401, `{"detail":"Invalid token."}`)
		})
	}
	h.Expect(h.Do("GET", "/api/domains/", "", "Authorization", "Token "+apitest.TestToken), 200, "")
	r := h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, "Authorization", "Token "+apitest.TestToken, "Content-Type", apitest.JSONType)
	h.Expect(r, 201, "")
	// Families B and C need no token.
	h.Expect(h.Do("POST", "/api/create-temp-email/", ""), 201, "")
	h.Expect(h.Do("POST", "/inboxes/", ""), 201, "")
}
