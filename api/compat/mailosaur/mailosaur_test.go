package mailosaur_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tempmail/service/apitest"
	"tempmail/service/servicetest"
)

// The Mailosaur family (package api/compat/mailosaur): what its SDK calls, its
// shapes, errors and bounds, and that one tenant's key never reaches
// another's servers or mail. cmd/tempmail's compat_mailosaur_test.go
// drives the same with the published SDK.

// mailosaurAuth is HTTP Basic with key as the user name, as the SDK sends it.
func mailosaurAuth(key string) []string {
	return []string{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(key+":")),
		"Content-Type", apitest.JSONType}
}

const mo = "/compat/mailosaur/api"

// mailosaurMail is an HTML and text message with a code and a link.
func mailosaurMail(to, subject string) string {
	return "From: Shop <shop@example.com>\r\nTo: " + to + "\r\nSubject: " + subject + "\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nYour code is 123456. Go to https://shop.example.com/verify?t=1\r\n" +
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" +
		`<html><body style="color:#654321"><p>Your code is <b>123456</b>.</p><a href="https://shop.example.com/verify?t=1">Verify</a></body></html>` +
		"\r\n--b--\r\n"
}

// mailosaurServer makes a server named name with key and returns its id.
func mailosaurServer(h *apitest.Harness, key, name string) string {
	h.T.Helper()
	r := h.Do("POST", mo+"/servers", `{"name":"`+name+`"}`, mailosaurAuth(key)...)
	if r.Status != http.StatusOK {
		h.T.Fatalf("create server: %d %s", r.Status, r.Body)
	}
	return r.JSON(h.T)["id"].(string)
}

// mailosaurFind searches the server for the one message to address, as
// the SDK's messages.get does first (mail sent by mailosaurDeliver is
// there already, so one search finds it).
func mailosaurFind(h *apitest.Harness, key, server, address string) map[string]any {
	h.T.Helper()
	r := h.Do("POST", mo+"/messages/search?server="+server+"&itemsPerPage=1", `{"sentTo":"`+address+`"}`, mailosaurAuth(key)...)
	if r.Status != http.StatusOK || r.Header.Get("X-Ms-Delay") == "" {
		h.T.Fatalf("search: %d %s %v", r.Status, r.Body, r.Header)
	}
	items := r.JSON(h.T)["items"].([]any)
	if len(items) != 1 {
		h.T.Fatalf("search found %d messages: %s", len(items), r.Body)
	}
	return items[0].(map[string]any)
}

// mailosaurDeliver sends raw to address, a new address on a catch-all
// server (the first mail makes its inbox), and waits until the inbox
// shows it: /address/latest/ held for the tenant's key.
func mailosaurDeliver(h *apitest.Harness, key, address, raw string) {
	h.T.Helper()
	h.SendMail(address, raw)
	r := h.Do("GET", "/address/latest/?wait=10&address="+url.QueryEscape(address), "", "Authorization", "Bearer "+key)
	if r.Status != http.StatusOK {
		h.T.Fatalf("mail to %s did not come: %d %s", address, r.Status, r.Body)
	}
}

func TestMailosaurServersAndMessages(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tenant := h.NewTenant("moteam", `{"messages_per_day":50}`)
	key, _ := h.NewKey(tenant, `["inboxes"]`)
	auth := mailosaurAuth(key)

	id := mailosaurServer(h, key, "Checkout tests")
	if len(id) != 8 {
		t.Fatalf("server id %q, want 8 characters", id)
	}
	h.Expect(h.Do("GET", mo+"/servers/"+id, "", auth...), 200, `{"id":"`+id+`","name":"Checkout tests","users":[],"messages":0}`)
	h.Expect(h.Do("PUT", mo+"/servers/"+id, `{"id":"`+id+`","name":"Renamed","users":[],"messages":0}`, auth...), 200,
		`{"id":"`+id+`","name":"Renamed","users":[],"messages":0}`)
	other := mailosaurServer(h, key, "Another")
	h.Expect(h.Do("GET", mo+"/servers", "", auth...), 200,
		`{"items":[{"id":"`+other+`","name":"Another","users":[],"messages":0},{"id":"`+id+`","name":"Renamed","users":[],"messages":0}]}`)

	// An address on the server: what generateEmailAddress makes with
	// MAILOSAUR_SMTP_HOST set to the first domain.
	address := "x7k2p@" + id + ".tempmail.test"
	mailosaurDeliver(h, key, address, mailosaurMail(address, "Verify your account"))
	mailosaurDeliver(h, key, "second@"+id+".tempmail.test", mailosaurMail("second@"+id+".tempmail.test", "Second"))

	sum := mailosaurFind(h, key, id, strings.ToUpper(address))
	if sum["server"] != id || sum["subject"] != "Verify your account" || sum["type"] != "Email" ||
		sum["from"].([]any)[0].(map[string]any)["email"] != "shop@example.com" {
		t.Errorf("summary %v", sum)
	}
	msgID := sum["id"].(string)
	r := h.Do("GET", mo+"/messages/"+msgID, "", auth...)
	h.Expect(r, 200, "")
	var m struct {
		Server string
		HTML   struct {
			Body  string
			Links []struct{ Href, Text string }
			Codes []struct{ Value string }
		}
		Text struct {
			Links []struct{ Href, Text string }
			Codes []struct{ Value string }
		}
		Metadata struct {
			Headers []struct{ Field, Value string }
			RcptTo  []struct{ Email string }
		}
	}
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Server != id || len(m.HTML.Codes) != 1 || m.HTML.Codes[0].Value != "123456" || len(m.Text.Codes) != 1 ||
		len(m.HTML.Links) != 1 || m.HTML.Links[0].Href != "https://shop.example.com/verify?t=1" || m.HTML.Links[0].Text != "Verify" ||
		len(m.Text.Links) != 1 || m.Metadata.RcptTo[0].Email != address || len(m.Metadata.Headers) == 0 {
		t.Errorf("message %s", r.Body)
	}

	// Search criteria: match ALL and ANY, subject, body, sender.
	for _, c := range []struct {
		body string
		n    int
	}{
		{`{}`, 2},
		{`{"subject":"verify"}`, 1},
		{`{"subject":"verify","sentTo":"second@` + id + `.tempmail.test"}`, 0},
		{`{"subject":"verify","sentTo":"second@` + id + `.tempmail.test","match":"ANY"}`, 2},
		{`{"body":"your CODE"}`, 2},
		{`{"body":"nowhere"}`, 0},
		{`{"sentFrom":"shop@example.com"}`, 2},
		{`{"sentFrom":"other@example.com"}`, 0},
	} {
		r := h.Do("POST", mo+"/messages/search?server="+id, c.body, auth...)
		if r.Status != 200 || len(r.JSON(t)["items"].([]any)) != c.n {
			t.Errorf("search %s: %d %s, want %d items", c.body, r.Status, r.Body, c.n)
		}
	}
	r = h.Do("POST", mo+"/messages/search?server="+id+"&receivedAfter=2999-01-01T00:00:00.000Z", `{}`, auth...)
	h.Expect(r, 200, `{"items":[]}`)
	r = h.Do("GET", mo+"/messages?server="+id+"&page=1&itemsPerPage=1", "", auth...)
	if items := r.JSON(t)["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != msgID {
		t.Errorf("page 1 of 1: %s", r.Body)
	}
	if r := h.Do("GET", mo+"/servers/"+id, "", auth...); r.JSON(t)["messages"] != 2.0 {
		t.Errorf("server %s, want 2 messages", r.Body)
	}
	h.Expect(h.Do("GET", mo+"/usage/limits", "", auth...), 200,
		`{"servers":{"limit":100,"current":2},"users":{"limit":0,"current":0},"email":{"limit":50,"current":2},"sms":{"limit":0,"current":0}}`)

	h.Expect(h.Do("DELETE", mo+"/messages/"+msgID, "", auth...), 204, "")
	h.Expect(h.Do("GET", mo+"/messages/"+msgID, "", auth...), 404, "")
	h.Expect(h.Do("DELETE", mo+"/messages?server="+id, "", auth...), 204, "")
	h.Expect(h.Do("GET", mo+"/messages?server="+id, "", auth...), 200, `{"items":[]}`)
	// The address takes mail again after all was deleted.
	mailosaurDeliver(h, key, address, mailosaurMail(address, "Again"))
	if sum := mailosaurFind(h, key, id, address); sum["subject"] != "Again" {
		t.Errorf("after delete all: %v", sum)
	}

	h.Expect(h.Do("DELETE", mo+"/servers/"+id, "", auth...), 204, "")
	h.Expect(h.Do("GET", mo+"/servers/"+id, "", auth...), 404, "")
	if err := servicetest.TrySend(h.Service.SMTPAddr(), "s@example.com", "new@"+id+".tempmail.test", mailosaurMail("x", "x")); err == nil ||
		!strings.Contains(err.Error(), "550") {
		t.Errorf("mail to a deleted server: %v, want 550", err)
	}
	h.Expect(h.Do("GET", mo+"/messages?server="+id, "", auth...), 404, "")
	h.Expect(h.Do("GET", mo+"/servers", "", auth...), 200, `{"items":[{"id":"`+other+`","name":"Another","users":[],"messages":0}]}`)
}

func TestMailosaurErrorsAndBounds(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tenant := h.NewTenant("mobounds", "")
	key, _ := h.NewKey(tenant, `["inboxes"]`)
	readKey, _ := h.NewKey(tenant, `["read"]`)
	auth := mailosaurAuth(key)
	id := mailosaurServer(h, key, "Bounds")

	// Credentials: HTTP Basic with a live key, nothing else.
	for _, headers := range [][]string{
		nil,
		{"Authorization", "Bearer " + key},
		{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(apitest.TestToken+":"))},
		{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte("tm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:"))},
		{"Authorization", "Basic " + strings.Repeat("A", 400)},
	} {
		r := h.Do("GET", mo+"/servers", "", headers...)
		if r.Status != 401 || r.Header.Get("WWW-Authenticate") == "" || r.JSON(t)["type"] != "AuthenticationError" {
			t.Errorf("%v: %d %v %s", headers, r.Status, r.Header, r.Body)
		}
	}
	// A read key reads, and changes nothing.
	h.Expect(h.Do("GET", mo+"/servers", "", mailosaurAuth(readKey)...), 200, "")
	h.Expect(h.Do("POST", mo+"/servers", `{"name":"x"}`, mailosaurAuth(readKey)...), 403, "")
	h.Expect(h.Do("DELETE", mo+"/servers/"+id, "", mailosaurAuth(readKey)...), 403, "")
	h.Expect(h.Do("DELETE", mo+"/messages?server="+id, "", mailosaurAuth(readKey)...), 403, "")

	// A 400 names its field, as the SDK reports it: "(field) description".
	for _, c := range []struct{ method, path, body, field string }{
		{"POST", "/servers", `{}`, "name"},
		{"POST", "/servers", `{"name":"` + strings.Repeat("n", 201) + `"}`, "name"},
		{"POST", "/servers", `{"name":"a\u0000b"}`, "name"},
		{"PUT", "/servers/" + id, `{"name":""}`, "name"},
		{"POST", "/servers", `{"name":`, "request"},
		{"GET", "/messages", "", "server"},
		{"DELETE", "/messages", "", "server"},
		{"GET", "/messages?server=" + id + "&itemsPerPage=0", "", "itemsPerPage"},
		{"GET", "/messages?server=" + id + "&itemsPerPage=1001", "", "itemsPerPage"},
		{"GET", "/messages?server=" + id + "&page=-1", "", "page"},
		{"GET", "/messages?server=" + id + "&receivedAfter=yesterday", "", "receivedAfter"},
		{"GET", "/messages?server=" + id + "&dir=sideways", "", "dir"},
		{"POST", "/messages/search?server=" + id, `{"match":"SOME"}`, "match"},
		{"POST", "/messages/search?server=" + id, `{"subject":"` + strings.Repeat("s", 257) + `"}`, "subject"},
		{"POST", "/messages/search?server=" + id, `{"subject":7}`, "request"},
	} {
		r := h.Do(c.method, mo+c.path, c.body, auth...)
		var e struct {
			Type   string
			Errors []struct {
				Field  string
				Detail []struct{ Description string }
			}
		}
		_ = json.Unmarshal(r.Body, &e)
		if r.Status != 400 || e.Type != "ValidationError" || len(e.Errors) != 1 || e.Errors[0].Field != c.field ||
			e.Errors[0].Detail[0].Description == "" {
			t.Errorf("%s %s %.40s: %d %s, want 400 on %s", c.method, c.path, c.body, r.Status, r.Body, c.field)
		}
	}
	// Ids that cannot be: 404 before anything is looked up.
	for _, p := range []string{"/servers/ABCDEFGHIJ", "/servers/abc", "/servers/" + strings.Repeat("9", 300),
		"/messages?server=zzzzzzzz", "/messages/not-a-uuid", "/messages/0190f0f0-0000-7000-8000-000000000000"} {
		if r := h.Do("GET", mo+p, "", auth...); r.Status != 404 || r.JSON(t)["type"] != "NotFoundError" {
			t.Errorf("GET %s: %d %s", p, r.Status, r.Body)
		}
	}
	h.Expect(h.Do("POST", mo+"/servers", "name=x", "Authorization", auth[1], "Content-Type", "text/plain"), 415, "")
}

// TestMailosaurIsolation: another tenant's key sees none of this
// tenant's servers and mail, and finds them as if they did not exist.
func TestMailosaurIsolation(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	key, _ := h.NewKey(h.NewTenant("mine", ""), `["inboxes"]`)
	theirs, _ := h.NewKey(h.NewTenant("theirs", ""), `["inboxes"]`)
	id := mailosaurServer(h, key, "Mine")
	address := "a@" + id + ".tempmail.test"
	mailosaurDeliver(h, key, address, mailosaurMail(address, "Private"))
	msgID := mailosaurFind(h, key, id, address)["id"].(string)

	them := mailosaurAuth(theirs)
	h.Expect(h.Do("GET", mo+"/servers", "", them...), 200, `{"items":[]}`)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/servers/" + id, ""},
		{"PUT", "/servers/" + id, `{"name":"taken"}`},
		{"DELETE", "/servers/" + id, ""},
		{"GET", "/messages?server=" + id, ""},
		{"POST", "/messages/search?server=" + id, `{"sentTo":"` + address + `"}`},
		{"DELETE", "/messages?server=" + id, ""},
		{"GET", "/messages/" + msgID, ""},
		{"DELETE", "/messages/" + msgID, ""},
	} {
		if r := h.Do(c.method, mo+c.path, c.body, them...); r.Status != 404 {
			t.Errorf("%s %s with another tenant's key: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	// All still there for its own tenant.
	h.Expect(h.Do("GET", mo+"/messages/"+msgID, "", mailosaurAuth(key)...), 200, "")
	h.Expect(h.Do("GET", mo+"/servers/"+id, "", mailosaurAuth(key)...), 200,
		`{"id":"`+id+`","name":"Mine","users":[],"messages":1}`)
}

// mailosaurTour calls each operation of the family once, for
// TestEveryOperationAnswersAsDocumented (the harness checks each answer).
func mailosaurTour(t *testing.T, h *apitest.Harness) {
	h = h.As(t)
	key, _ := h.NewKey(h.NewTenant("mailosaur tour", ""), `["inboxes"]`)
	auth := mailosaurAuth(key)
	id := mailosaurServer(h, key, "Tour")
	address := "t@" + id + ".tempmail.test"
	mailosaurDeliver(h, key, address, mailosaurMail(address, "Tour"))
	msgID := mailosaurFind(h, key, id, address)["id"].(string)
	withFile := "file@" + id + ".tempmail.test"
	raw, _ := binaryMail(withFile)
	mailosaurDeliver(h, key, withFile, raw)
	fileMsg := mailosaurFind(h, key, id, withFile)["id"].(string)
	device := createDevice(h, key, "Tour", "JBSWY3DPEHPK3PXP")
	calls := []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/files/email/" + msgID, "", 200},
		{"GET", "/files/attachments/" + fileMsg + "-1", "", 200},
		{"POST", "/devices/otp", `{"sharedSecret":"JBSWY3DPEHPK3PXP"}`, 200},
		{"GET", "/devices", "", 200},
		{"GET", "/devices/" + device + "/otp", "", 200},
		{"DELETE", "/devices/" + device, "", 204},
		{"GET", "/usage/transactions", "", 200},
		{"GET", "/servers", "", 200},
		{"GET", "/servers/" + id, "", 200},
		{"PUT", "/servers/" + id, `{"name":"Tour two"}`, 200},
		{"GET", "/messages?server=" + id, "", 200},
		{"GET", "/messages/" + msgID, "", 200},
		{"GET", "/usage/limits", "", 200},
		{"DELETE", "/messages/" + msgID, "", 204},
		{"DELETE", "/messages?server=" + id, "", 204},
		{"DELETE", "/servers/" + id, "", 204},
		{"GET", "/servers/" + id, "", 404},
	}
	for _, c := range refusedCalls {
		calls = append(calls, struct {
			method, path, body string
			status             int
		}{c.method, c.path, "{}", 400})
	}
	for _, c := range calls {
		if r := h.Do(c.method, mo+c.path, c.body, auth...); r.Status != c.status {
			t.Errorf("%s %s: %d, want %d; %.200s", c.method, c.path, r.Status, c.status, r.Body)
		}
	}
}

// TestEveryOperationAnswersAsDocumented: each of the family's operations,
// called once, answers as the OpenAPI document says.
func TestEveryOperationAnswersAsDocumented(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	mailosaurTour(t, h)
	for _, op := range h.Unanswered(func(path string) bool { return strings.HasPrefix(path, "/compat/mailosaur/") }) {
		t.Errorf("operation %s was not called: add a call to the tour", op)
	}
}
