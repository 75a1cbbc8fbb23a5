package api_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

var pdfBytes = []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")

// multipartMail is a message with RFC 2047 words, text and HTML bodies and
// a binary attachment: what the cross-family tests read back field by field.
func multipartMail(to string) string {
	return "From: =?UTF-8?Q?J=C3=B6rg?= <joerg@example.com>\r\n" +
		"To: " + to + "\r\nCc: cc@example.org\r\n" +
		"Subject: =?UTF-8?B?UHLDvGZ1bmcg4pyT?=\r\n" +
		"Message-ID: <cross-1@example.com>\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=\"M\"\r\n\r\n" +
		"--M\r\nContent-Type: multipart/alternative; boundary=\"A\"\r\n\r\n" +
		"--A\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nGrüße, code 739201\r\n" +
		"--A\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Grüße, code <b>739201</b></p>\r\n--A--\r\n" +
		"--M\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"report.pdf\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n" + base64.StdEncoding.EncodeToString(pdfBytes) + "\r\n--M--\r\n"
}

// One message, sent over SMTP, read through all three families.
func TestOneMessageThroughAllThreeFamilies(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := h.do("POST", "/api/create-temp-email/", `{"email_name":"cross"}`, "Content-Type", jsonCT).JSON(t)
	addr, token, inboxID := b["email"].(string), b["token"].(string), b["inbox_id"].(string)
	if addr != "cross@tempmail.test" {
		t.Fatalf("family B address %q", addr)
	}
	h.sendMail(addr, multipartMail(addr))
	c := h.waitLatest(token, "")
	id := c["id"].(string)

	a := h.do("GET", "/api/emails/"+id+"/", "").JSON(t)
	bm := h.do("GET", "/api/mailstore/mailbox/cross/"+id+".eml/", "").JSON(t)
	cm := h.do("GET", "/inboxes/"+token+"/messages/"+id+"/", "").JSON(t)

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
	if dl := h.do("GET", "/api/attachments/"+aAtt["id"].(string)+"/download", ""); string(dl.Body) != string(pdfBytes) {
		t.Errorf("attachment bytes %q", dl.Body)
	}
	if raw := h.do("GET", "/api/emails/"+id+"/raw", ""); !strings.HasSuffix(string(raw.Body), multipartMail(addr)) {
		t.Errorf("raw source %.300q", raw.Body)
	}
	otp := h.do("GET", "/inboxes/"+token+"/otp/", "").JSON(t)
	same("otp", "739201", otp["otp"])

	// A state change through one family shows through the others at once.
	h.expect(h.do("POST", "/api/mailstore/mailbox/cross/"+id+".eml/", "{}", "Content-Type", jsonCT), 200, "")
	same("is_read", true, h.do("GET", "/api/emails/"+id, "").JSON(t)["is_read"],
		h.do("GET", "/inboxes/"+token+"/messages/"+id, "").JSON(t)["is_read"])
	h.expect(h.do("DELETE", "/api/emails/"+id, ""), 204, "")
	h.expect(h.do("GET", "/api/mailstore/mailbox/cross/"+id+".eml", ""), 404, `{"success":false,"error":"Email not found"}`)
	h.expect(h.do("GET", "/inboxes/"+token+"/messages/"+id, ""), 404, `{"error":"Message not found"}`)
	h.expect(h.do("GET", "/inboxes/"+token+"/latest", ""), 404, `{"error":"No messages"}`)
	h.expect(h.do("GET", "/api/mailstore/mailbox/cross", ""), 200, `{"emails":[],"total":0}`)

	// The family B inbox is a family A inbox too, and deleting it there
	// ends it everywhere.
	if got := h.do("GET", "/api/inboxes/"+inboxID, "").JSON(t); got["email"] != addr || got["expires_at"] != nil || got["ttl"] != nil {
		t.Errorf("family B inbox through family A: %v", got)
	}
	h.expect(h.do("DELETE", "/api/inboxes/"+inboxID, ""), 204, "")
	h.expect(h.do("GET", "/api/mailstore/mailbox/cross", ""), 404, `{"success":false,"error":"Mailbox not found"}`)
	h.expect(h.do("GET", "/inboxes/"+token+"/messages", ""), 404, `{"error":"Inbox not found"}`)
	// ...and frees the name.
	h.expect(h.do("POST", "/api/create-temp-email/", `{"email_name":"cross"}`, "Content-Type", jsonCT), 201, "")
}
