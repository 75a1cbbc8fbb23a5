package mailboxapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"tempmail/service/apitest"
	"testing"
)

func TestCreateTempEmailB(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	r := h.Do("POST", "/api/create-temp-email/", "")
	v := r.JSON(t)
	local, domain, _ := strings.Cut(v["email"].(string), "@")
	if r.Status != 201 || v["success"] != true || len(local) != 12 || domain != "tempmail.test" || !apitest.IsUUID(v["inbox_id"].(string)) ||
		v["token"] == "" || !strings.Contains(v["created_at"].(string), ".") {
		t.Errorf("random: %d %v", r.Status, v)
	}
	for _, body := range []string{`{}`, `{"email_name":""}`, `{"email_name":null}`} {
		if r := h.Do("POST", "/api/create-temp-email/", body, "Content-Type", apitest.JSONType); r.Status != 201 {
			t.Errorf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	if v := h.Do("POST", "/api/create-temp-email/", `{"email_name":"Mixed.Case-1_x"}`, "Content-Type", apitest.JSONType).JSON(t); v["email"] != "mixed.case-1_x@tempmail.test" {
		t.Errorf("chosen name: %v", v)
	}
	h.Expect(h.Do("POST", "/api/create-temp-email/", `{"email_name":"MIXED.case-1_X"}`, "Content-Type", apitest.JSONType),
		409, `{"success":false,"error":"Email name already taken"}`)
	// Taken by an inbox of another family on the same domain.
	c := h.Do("POST", "/inboxes/", "").JSON(t)
	h.Expect(h.Do("POST", "/api/create-temp-email/", fmt.Sprintf(`{"email_name":%q}`, strings.Split(c["address"].(string), "@")[0]), "Content-Type", apitest.JSONType),
		409, `{"success":false,"error":"Email name already taken"}`)

	for _, c := range []struct{ name, why string }{
		{`"-dash"`, "must start and end with a letter or digit"},
		{`"dot."`, "must start and end with a letter or digit"},
		{`"a..b"`, "must not contain '..'"},
		{`"sp ace"`, "may contain only a-z, 0-9, '.', '_' and '-'"},
		{`"ünï"`, "may contain only a-z, 0-9, '.', '_' and '-'"},
		{`"a@b"`, "may contain only a-z, 0-9, '.', '_' and '-'"},
		{`"../../etc"`, "must not contain '..'"},
		{fmt.Sprintf("%q", strings.Repeat("a", 65)), "must be at most 64 characters"},
		{`"Postmaster"`, "'postmaster' is reserved"},
		{`"mailer-daemon"`, "'mailer-daemon' is reserved"},
		{`42`, "must be a string"},
	} {
		t.Run(fmt.Sprintf("%.20s", c.name), func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			h.Expect(h.Do("POST", "/api/create-temp-email/", `{"email_name":`+c.name+`}`, "Content-Type", apitest.JSONType),
				400, fmt.Sprintf(`{"success":false,"error":%q}`, "Invalid email_name: "+c.why))
		})
	}
	if r := h.Do("POST", "/api/create-temp-email/", `{"email_name":"`+strings.Repeat("a", 64)+`"}`, "Content-Type", apitest.JSONType); r.Status != 201 {
		t.Errorf("64 characters: %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/create-temp-email/", `{"email_name":`, "Content-Type", apitest.JSONType); r.Status != 400 || r.JSON(t)["success"] != false {
		t.Errorf("malformed JSON: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("POST", "/api/create-temp-email/", `email_name=x`, "Content-Type", "text/plain"), 415, "")
	h.Expect(h.Do("GET", "/api/create-temp-email/", ""), 405, "")
}

func TestConcurrentCreatesOfOneNameExactlyOneWins(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for round := range 3 {
		name := fmt.Sprintf("race%d", round)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			const n = 12
			var answers []<-chan apitest.Response
			for range n {
				answers = append(answers, h.Start("POST", "/api/create-temp-email/", `{"email_name":"`+name+`"}`, "Content-Type", apitest.JSONType))
			}
			won := 0
			var codes []int
			for _, answer := range answers {
				r := <-answer
				codes = append(codes, r.Status)
				switch r.Status {
				case 201:
					won++
				case 409:
				default:
					t.Errorf("a concurrent create answered %d %s", r.Status, r.Body)
				}
			}
			if won != 1 {
				t.Errorf("%d creates won, want exactly 1 (%v)", won, codes)
			}
		})
	}
}

func TestMailboxB(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	h.Do("POST", "/api/create-temp-email/", `{"email_name":"box"}`, "Content-Type", apitest.JSONType)
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/box/", ""), 200, `{"emails":[],"total":0}`)
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/nobody/", ""), 404, `{"success":false,"error":"Mailbox not found"}`)
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/box@tempmail.test/", ""), 404, `{"success":false,"error":"Mailbox not found"}`)

	for i := range 3 {
		h.SendMail("box@tempmail.test", fmt.Sprintf("From: S <s@example.com>\r\nSubject: n%d\r\nX-Custom: v%d\r\n\r\nbody %d\r\n", i, i, i))
	}
	var list struct {
		Emails []map[string]any `json:"emails"`
		Total  int              `json:"total"`
	}
	for list.Total < 3 {
		_ = json.Unmarshal(h.Do("GET", "/api/mailstore/mailbox/BOX/", "").Body, &list)
	}
	if len(list.Emails) != 3 || list.Emails[0]["subject"] != "n2" || list.Emails[2]["subject"] != "n0" {
		t.Fatalf("mailbox %v", list)
	}
	m := list.Emails[0]
	fn := m["filename"].(string)
	if m["from"] != "s@example.com" || m["from_name"] != "S" || m["to"] != "box@tempmail.test" || m["body"] != "body 2\n" ||
		m["headers"].(map[string]any)["X-Custom"] != "v2" || m["is_read"] != false || fmt.Sprint(m["attachments"]) != "[]" || !strings.HasSuffix(fn, ".eml") {
		t.Errorf("message %v", m)
	}
	got := h.Do("GET", "/api/mailstore/mailbox/box/"+fn+"/", "").JSON(t)
	if got["filename"] != fn || got["is_read"] != false {
		t.Errorf("message get %v", got)
	}
	if r := h.Do("POST", "/api/mailstore/mailbox/box/"+fn+"/", "{}", "Content-Type", apitest.JSONType); r.Status != 200 || r.JSON(t)["is_read"] != true {
		t.Errorf("mark read: %d %s", r.Status, r.Body)
	}
	if h.Do("GET", "/api/mailstore/mailbox/box/"+fn, "").JSON(t)["is_read"] != true {
		t.Error("read flag not visible")
	}
	h.Expect(h.Do("DELETE", "/api/mailstore/mailbox/box/"+fn+"/delete/", ""), 200, `{"success":true,"message":"Email deleted successfully"}`)
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/box/"+fn, ""), 404, `{"success":false,"error":"Email not found"}`)
	h.Expect(h.Do("DELETE", "/api/mailstore/mailbox/box/"+fn+"/delete", ""), 404, `{"success":false,"error":"Email not found"}`)
	if r := h.Do("GET", "/api/mailstore/mailbox/box", "").JSON(t); r["total"] != float64(2) {
		t.Errorf("total after delete %v", r["total"])
	}

	for _, bad := range []string{"nope.eml", strings.TrimSuffix(fn, ".eml"), "0190f0f0-0000-7000-8000-000000000000.eml", fn + ".eml", "..", "%2e%2e"} {
		h.Expect(h.Do("GET", "/api/mailstore/mailbox/box/"+bad+"/", ""), 404, `{"success":false,"error":"Email not found"}`)
	}
	// Paths that climb out match no route at all: still a family B 404.
	for _, bad := range []string{"../../../etc/passwd", "..%2f..%2fetc%2fpasswd", "../" + fn} {
		if r := h.Do("GET", "/api/mailstore/mailbox/box/"+bad+"/", ""); r.Status != 404 || r.JSON(t)["success"] != false {
			t.Errorf("%s: %d %s", bad, r.Status, r.Body)
		}
	}
	// A message of another mailbox is not found through this one.
	h.Do("POST", "/api/create-temp-email/", `{"email_name":"other"}`, "Content-Type", apitest.JSONType)
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/other/"+list.Emails[1]["filename"].(string), ""), 404, `{"success":false,"error":"Email not found"}`)
	// Inboxes on other domains are not family B mailboxes.
	a := h.CreateInboxA(`{"domain_id": 2}`)
	user := strings.Split(a["email"].(string), "@")[0]
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/"+user, ""), 404, `{"success":false,"error":"Mailbox not found"}`)
	h.Expect(h.Do("PUT", "/api/mailstore/mailbox/box", ""), 405, "")
}
