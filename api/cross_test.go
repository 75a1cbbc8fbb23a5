package api_test

import (
	"fmt"
	"strings"
	"tempmail/service/apitest"
	"testing"
)

var pdfBytes = []byte(apitest.PDF)

// One message, sent over SMTP, read through all three families.
func TestOneMessageThroughAllThreeFamilies(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	b := h.Do("POST", "/api/create-temp-email/", `{"email_name":"cross"}`, "Content-Type", apitest.JSONType).JSON(t)
	addr, token, inboxID := b["email"].(string), b["token"].(string), b["inbox_id"].(string)
	if addr != "cross@tempmail.test" {
		t.Fatalf("family B address %q", addr)
	}
	h.SendMail(addr, apitest.MultipartMail(addr))
	c := h.WaitLatest(token, "")
	id := c["id"].(string)

	a := h.Do("GET", "/api/emails/"+id+"/", "").JSON(t)
	bm := h.Do("GET", "/api/mailstore/mailbox/cross/"+id+".eml/", "").JSON(t)
	cm := h.Do("GET", "/inboxes/"+token+"/messages/"+id+"/", "").JSON(t)

	same := func(field string, values ...any) {
		t.Helper()
		for _, v := range values[1:] {
			if fmt.Sprint(v) != fmt.Sprint(values[0]) {
				t.Errorf("%s differs between families: %q", field, values)
				return
			}
		}
	}
	same("sender", "joerg@example.com", a["from_email"], bm["from"], cm["from"])
	same("sender name", "Jörg", a["from_name"], bm["from_name"], cm["from_name"])
	same("subject", "Prüfung ✓", a["subject"], bm["subject"], cm["subject"])
	same("text", "Grüße, code 739201", a["body_text"], bm["body"], cm["text"])
	same("html", "<p>Grüße, code <b>739201</b></p>", a["body_html"], bm["body_html"], cm["html"])
	same("received", c["received_at"], a["received_at"], bm["date"], cm["received_at"])
	same("size", c["size"], a["size"], bm["size"], cm["size"])
	same("recipient", addr, bm["to"], cm["to"])
	same("inbox", inboxID, a["inbox_id"])
	same("filename", id+".eml", bm["filename"])
	if bm["headers"].(map[string]any)["Message-ID"] != "<cross-1@example.com>" || bm["headers"].(map[string]any)["Subject"] != "Prüfung ✓" {
		t.Errorf("family B headers %v", bm["headers"])
	}
	aAtt := a["attachments"].([]any)[0].(map[string]any)
	bAtt := bm["attachments"].([]any)[0].(map[string]any)
	cAtt := cm["attachments"].([]any)[0].(map[string]any)
	same("attachment name", "report.pdf", aAtt["filename"], bAtt["filename"], cAtt["filename"])
	same("attachment type", "application/pdf", aAtt["content_type"], bAtt["content_type"], cAtt["content_type"])
	same("attachment size", len(pdfBytes), aAtt["file_size"], bAtt["size"], cAtt["size"])
	if dl := h.Do("GET", "/api/attachments/"+aAtt["id"].(string)+"/download", ""); string(dl.Body) != string(pdfBytes) {
		t.Errorf("attachment bytes %q", dl.Body)
	}
	if raw := h.Do("GET", "/api/emails/"+id+"/raw", ""); !strings.HasSuffix(string(raw.Body), apitest.MultipartMail(addr)) {
		t.Errorf("raw source %.300q", raw.Body)
	}
	otp := h.Do("GET", "/inboxes/"+token+"/otp/", "").JSON(t)
	same("otp", "739201", otp["otp"])

	// A state change through one family shows through the others at once.
	h.Expect(h.Do("POST", "/api/mailstore/mailbox/cross/"+id+".eml/", "{}", "Content-Type", apitest.JSONType), 200, "")
	same("is_read", true, h.Do("GET", "/api/emails/"+id, "").JSON(t)["is_read"],
		h.Do("GET", "/inboxes/"+token+"/messages/"+id, "").JSON(t)["is_read"])
	h.Expect(h.Do("DELETE", "/api/emails/"+id, ""), 204, "")
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/cross/"+id+".eml", ""), 404, `{"success":false,"error":"Email not found"}`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/messages/"+id, ""), 404, `{"error":"Message not found"}`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/latest", ""), 404, `{"error":"No messages"}`)
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/cross", ""), 200, `{"emails":[],"total":0}`)

	// The family B inbox is a family A inbox too, and deleting it there
	// ends it everywhere.
	if got := h.Do("GET", "/api/inboxes/"+inboxID, "").JSON(t); got["email"] != addr || got["expires_at"] != nil || got["ttl"] != nil {
		t.Errorf("family B inbox through family A: %v", got)
	}
	h.Expect(h.Do("DELETE", "/api/inboxes/"+inboxID, ""), 204, "")
	h.Expect(h.Do("GET", "/api/mailstore/mailbox/cross", ""), 404, `{"success":false,"error":"Mailbox not found"}`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/messages", ""), 404, `{"error":"Inbox not found"}`)
	// ...and frees the name.
	h.Expect(h.Do("POST", "/api/create-temp-email/", `{"email_name":"cross"}`, "Content-Type", apitest.JSONType), 201, "")
}
