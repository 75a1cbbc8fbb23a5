package mailosaur_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/service/apitest"
)

// The Mailosaur calls beyond servers and messages (files.go, devices.go,
// refused.go, held.go).

// binaryMail is a message with a 256-byte attachment of every byte value.
func binaryMail(to string) (raw string, file []byte) {
	file = make([]byte, 256)
	for i := range file {
		file[i] = byte(i)
	}
	raw = "From: Shop <shop@example.com>\r\nTo: " + to + "\r\nSubject: With a file\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=m\r\n\r\n--m\r\nContent-Type: text/plain\r\n\r\nSee the file.\r\n" +
		"--m\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"bytes.bin\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n" + base64.StdEncoding.EncodeToString(file) + "\r\n--m--\r\n"
	return raw, file
}

// TestMailosaurFiles: files.getEmail is the message as sent, and
// files.getAttachment an attachment's exact bytes; another tenant's key,
// and ids that cannot be, are 404 in the family's shape.
func TestMailosaurFiles(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	key, _ := h.NewKey(h.NewTenant("mofiles", ""), `["read","inboxes"]`)
	theirs, _ := h.NewKey(h.NewTenant("mofiles other", ""), `["inboxes"]`)
	auth := mailosaurAuth(key)
	id := mailosaurServer(h, key, "Files")
	address := "f@" + id + ".tempmail.test"
	raw, file := binaryMail(address)
	mailosaurDeliver(h, key, address, raw)
	msgID := mailosaurFind(h, key, id, address)["id"].(string)

	r := h.Do("GET", mo+"/messages/"+msgID, "", auth...)
	var m struct {
		Attachments []struct{ ID, FileName string }
	}
	if err := json.Unmarshal(r.Body, &m); err != nil || len(m.Attachments) != 1 || m.Attachments[0].FileName != "bytes.bin" {
		t.Fatalf("message: %s", r.Body)
	}
	attID := m.Attachments[0].ID

	r = h.Do("GET", mo+"/files/email/"+msgID, "", auth...)
	if r.Status != 200 || !bytes.HasSuffix(r.Body, []byte(raw)) || r.Header.Get("Content-Type") != "message/rfc822" {
		t.Errorf("files.getEmail: %d %s\n%s", r.Status, r.Header, r.Body)
	}
	r = h.Do("GET", mo+"/files/attachments/"+attID, "", auth...)
	if r.Status != 200 || !bytes.Equal(r.Body, file) {
		t.Errorf("files.getAttachment: %d %x", r.Status, r.Body)
	}
	for _, p := range []string{"/files/email/" + msgID, "/files/attachments/" + attID} {
		if r := h.Do("GET", mo+p, "", mailosaurAuth(theirs)...); r.Status != 404 || r.JSON(t)["type"] != "NotFoundError" {
			t.Errorf("GET %s with another tenant's key: %d %s", p, r.Status, r.Body)
		}
	}
	for _, p := range []string{"/files/email/nope", "/files/attachments/" + msgID + "-2", "/files/attachments/" + msgID,
		"/files/attachments/" + msgID + "-1-1", "/files/attachments/-1", "/files/attachments/" + strings.Repeat("a-", 900),
		"/files/attachments/" + strings.ToUpper(attID) + "%00"} {
		if r := h.Do("GET", mo+p, "", auth...); r.Status != 404 || r.JSON(t)["type"] != "NotFoundError" {
			t.Errorf("GET %.80s: %d %.200s", p, r.Status, r.Body)
		}
	}
}

// TestMailosaurDeviceCodes: devices.otp with a shared secret gives the
// code of now, which changes when it expires; bad secrets are a 400 on
// sharedSecret.
func TestMailosaurDeviceCodes(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	key, _ := h.NewKey(h.NewTenant("modevices", ""), `["read"]`)
	auth := mailosaurAuth(key)
	r := h.Do("POST", mo+"/devices/otp", `{"sharedSecret":"ONSWG4TFOQYTEMY"}`, auth...)
	var otp struct {
		Code    string
		Expires time.Time
	}
	if err := json.Unmarshal(r.Body, &otp); r.Status != 200 || err != nil || len(otp.Code) != 6 ||
		strings.Trim(otp.Code, "0123456789") != "" || otp.Expires.Unix()%30 != 0 || time.Until(otp.Expires) > 30*time.Second {
		t.Errorf("devices.otp: %d %s", r.Status, r.Body)
	}
	for _, body := range []string{`{}`, `{"sharedSecret":""}`, `{"sharedSecret":"not base32!"}`,
		`{"sharedSecret":"` + strings.Repeat("A", 1000) + `"}`} {
		r := h.Do("POST", mo+"/devices/otp", body, auth...)
		if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"sharedSecret"`) {
			t.Errorf("devices.otp %.40s: %d %s", body, r.Status, r.Body)
		}
	}
}

// refusedCalls are a request for each call the family refuses, and the
// SDK's name for it.
var refusedCalls = []struct{ method, path, call string }{
	{"GET", "/analysis/spam/" + anyMessage, "analysis.spam"},
	{"GET", "/analysis/deliverability/" + anyMessage, "analysis.deliverability"},
	{"POST", "/messages?server=abcdefgh", "messages.create"},
	{"POST", "/messages/" + anyMessage + "/forward", "messages.forward"},
	{"POST", "/messages/" + anyMessage + "/reply", "messages.reply"},
	{"POST", "/messages/" + anyMessage + "/screenshots", "messages.generatePreviews"},
	{"GET", "/screenshots/clients", "previews.listEmailClients"},
	{"GET", "/servers/abcdefgh/password", "servers.getPassword"},
}

const anyMessage = "0190f0f0-0000-7000-8000-000000000000"

// TestMailosaurRefusesWhatItCannotDo: each refused call is a 400 whose
// field is the SDK's name for it (what the SDK and cypress-mailosaur
// throw), after the key is checked; transactions count today's mail.
func TestMailosaurRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	key, _ := h.NewKey(h.NewTenant("morefused", ""), `["read"]`)
	auth := mailosaurAuth(key)
	for _, c := range refusedCalls {
		r := h.Do(c.method, mo+c.path, `{}`, auth...)
		var e struct {
			Errors []struct {
				Field  string
				Detail []struct{ Description string }
			}
		}
		_ = json.Unmarshal(r.Body, &e)
		if r.Status != 400 || len(e.Errors) != 1 || e.Errors[0].Field != c.call ||
			!strings.HasPrefix(e.Errors[0].Detail[0].Description, c.call+" (cy.mailosaur") ||
			!strings.Contains(e.Errors[0].Detail[0].Description, "not supported by tempmail") {
			t.Errorf("%s %s: %d %s", c.method, c.path, r.Status, r.Body)
		}
		if r := h.Do(c.method, mo+c.path, "", "Authorization", "Basic eDo="); r.Status != 401 {
			t.Errorf("%s %s without a key: %d", c.method, c.path, r.Status)
		}
	}
	r := h.Do("GET", mo+"/usage/transactions", "", auth...)
	var tr struct {
		Items []struct {
			Timestamp  time.Time
			Email, SMS int
		}
	}
	if err := json.Unmarshal(r.Body, &tr); r.Status != 200 || err != nil || len(tr.Items) != 1 || tr.Items[0].Email != 0 ||
		!tr.Items[0].Timestamp.Equal(time.Now().UTC().Truncate(24*time.Hour)) {
		t.Errorf("usage.transactions: %d %s", r.Status, r.Body)
	}
}

// TestMailosaurSearchIsHeldUntilAMatchIsStored: a search that finds
// nothing is answered at once, telling the SDK to ask again at once; the
// same search asked again is held, and answered with the message that
// came meanwhile, as messages.get waits. On a service of its own: it
// counts the requests held.
func TestMailosaurSearchIsHeldUntilAMatchIsStored(t *testing.T) {
	t.Parallel()
	h := apitest.New(t)
	key, _ := h.NewKey(h.NewTenant("moheld", ""), `["inboxes"]`)
	auth := mailosaurAuth(key)
	id := mailosaurServer(h, key, "Held")
	address := "held@" + id + ".tempmail.test"
	search := func() apitest.Response {
		return h.Do("POST", mo+"/messages/search?server="+id+"&itemsPerPage=1", `{"sentTo":"`+address+`"}`, auth...)
	}
	if r := search(); r.Status != 200 || r.Header.Get("X-Ms-Delay") != "1" || strings.TrimSpace(string(r.Body)) != `{"items":[]}` {
		t.Fatalf("the first search: %d %v %s", r.Status, r.Header, r.Body)
	}
	// The second is held: the mail is sent once it is.
	answer := h.Start("POST", mo+"/messages/search?server="+id+"&itemsPerPage=1", `{"sentTo":"`+address+`"}`, auth...)
	h.WaitHeld(1)
	h.SendMail(address, mailosaurMail(address, "Came while held"))
	held := <-answer
	if items, _ := held.JSON(t)["items"].([]any); held.Status != 200 || len(items) != 1 ||
		items[0].(map[string]any)["subject"] != "Came while held" {
		t.Errorf("the held search: %d %s", held.Status, held.Body)
	}
	// Not held when asked by another key: that is another client.
	other, _ := h.NewKey(h.NewTenant("moheld other", ""), `["inboxes"]`)
	r := h.Do("POST", mo+"/messages/search?server="+id+"&itemsPerPage=1", `{"sentTo":"`+address+`"}`, mailosaurAuth(other)...)
	if r.Status != http.StatusNotFound {
		t.Errorf("another tenant's search: %d %s", r.Status, r.Body)
	}
}

// TestMailosaurHeldSearchesCountAgainstTheClientsShare: a held search
// takes one of the client's places (--max-waiters-per-client); one more
// held search beyond the share is refused 429 at once, in the family's
// shape, while the first is still held.
func TestMailosaurHeldSearchesCountAgainstTheClientsShare(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.MaxWaitersPerClient = 1 })
	key, _ := h.NewKey(h.NewTenant("moshare", ""), `["inboxes"]`)
	auth := mailosaurAuth(key)
	id := mailosaurServer(h, key, "Share")
	search := func(string) string { return mo + "/messages/search?server=" + id + "&itemsPerPage=1" }
	body := func(to string) string { return `{"sentTo":"` + to + `@` + id + `.tempmail.test"}` }
	for _, to := range []string{"first", "second"} {
		if r := h.Do("POST", search(to), body(to), auth...); r.Status != 200 || r.Header.Get("X-Ms-Delay") != "1" {
			t.Fatalf("the first search for %s: %d %v", to, r.Status, r.Header)
		}
	}
	held := h.Start("POST", search("first"), body("first"), auth...)
	h.WaitHeld(1)
	r := h.Do("POST", search("second"), body("second"), auth...)
	if r.Status != http.StatusTooManyRequests || r.JSON(t)["type"] != "RateLimitError" {
		t.Errorf("a second held search beyond the share: %d %s", r.Status, r.Body)
	}
	if r := <-held; r.Status != 200 || strings.TrimSpace(string(r.Body)) != `{"items":[]}` {
		t.Errorf("the held search, after its hold: %d %s", r.Status, r.Body)
	}
}
