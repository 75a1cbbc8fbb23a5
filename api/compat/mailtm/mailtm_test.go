package mailtm_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/service/apitest"
)

// The mail.tm family (package api/compat/mailtm): accounts, tokens and messages in
// the original's shapes, JSON-LD or JSON as Accept asks; its errors;
// bounds; and isolation between accounts and between tenants.

const mailtmBase = "/compat/mailtm"

// mailtmAccount makes an account with headers (a key, or none) and logs in,
// returning its id and token.
func mailtmAccount(h *apitest.Harness, address, password string, headers ...string) (id, token string) {
	h.T.Helper()
	body := `{"address":"` + address + `","password":"` + password + `"}`
	r := h.Do("POST", mailtmBase+"/accounts", body, append([]string{"Content-Type", apitest.JSONType}, headers...)...)
	if r.Status != http.StatusCreated {
		h.T.Fatalf("POST /accounts: %d %s", r.Status, r.Body)
	}
	r = h.Do("POST", mailtmBase+"/token", body, "Content-Type", apitest.JSONType)
	if r.Status != http.StatusOK {
		h.T.Fatalf("POST /token: %d %s", r.Status, r.Body)
	}
	v := r.JSON(h.T)
	return v["id"].(string), v["token"].(string)
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

func asJSON(headers ...string) []string { return append(headers, "Accept", "application/json") }

func TestMailTMAccountTokenAndMessagesInBothFormats(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)

	// Domains: a hydra collection by default, an array in JSON.
	r := h.Do("GET", mailtmBase+"/domains?page=1", "")
	h.Expect(r, http.StatusOK, "")
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/ld+json") {
		t.Errorf("domains: content type %q, want JSON-LD by default", ct)
	}
	doms := r.JSON(t)
	if doms["@type"] != "hydra:Collection" || doms["hydra:totalItems"] != 2.0 {
		t.Errorf("domains in JSON-LD: %s", r.Body)
	}
	first := doms["hydra:member"].([]any)[0].(map[string]any)
	if first["domain"] != "tempmail.test" || first["@id"] != "/domains/1" || first["isActive"] != true {
		t.Errorf("first domain: %v", first)
	}
	r = h.Do("GET", mailtmBase+"/domains", "", "Accept", "application/json")
	var list []map[string]any
	if err := json.Unmarshal(r.Body, &list); err != nil || len(list) != 2 || list[1]["domain"] != "other.test" || list[1]["@id"] != nil {
		t.Errorf("domains in JSON: %s (%v)", r.Body, err)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("domains: content type %q, want JSON", ct)
	}
	h.Expect(h.Do("GET", mailtmBase+"/domains/2", "", "Accept", "application/json"), http.StatusOK,
		`{"id":"2","domain":"other.test","isActive":true,"isPrivate":false}`)
	h.Expect(h.Do("GET", mailtmBase+"/domains/9", ""), http.StatusNotFound, "")

	id, token := mailtmAccount(h, "Alice@tempmail.test", "s3cret pass")
	me := h.Do("GET", mailtmBase+"/me", "", bearer(token)...)
	h.Expect(me, http.StatusOK, "")
	if v := me.JSON(t); v["id"] != id || v["address"] != "alice@tempmail.test" || v["@context"] != "/contexts/Account" ||
		v["@id"] != "/accounts/"+id || v["@type"] != "Account" {
		t.Errorf("GET /me: %s", me.Body)
	}
	if v := h.Do("GET", mailtmBase+"/accounts/"+id, "", asJSON(bearer(token)...)...).JSON(t); v["@id"] != nil || v["id"] != id {
		t.Errorf("GET /accounts/{id} in JSON: %v", v)
	}

	// Nothing yet; then a message, sent over SMTP.
	r = h.Do("GET", mailtmBase+"/messages", "", bearer(token)...)
	h.Expect(r, http.StatusOK, "")
	if v := r.JSON(t); v["hydra:totalItems"] != 0.0 || len(v["hydra:member"].([]any)) != 0 {
		t.Errorf("empty list: %s", r.Body)
	}
	h.SendMail("alice@tempmail.test", "From: Bob <bob@example.com>\r\nTo: alice@tempmail.test\r\nMessage-ID: <m1@example.com>\r\n"+
		"Subject: hello\r\nContent-Type: text/html\r\n\r\n<p>code 123456</p>\r\n")
	h.WaitLatest(token, "")
	r = h.Do("GET", mailtmBase+"/messages", "", bearer(token)...)
	items := r.JSON(t)["hydra:member"].([]any)
	if len(items) != 1 {
		t.Fatalf("after a message: %s", r.Body)
	}
	sum := items[0].(map[string]any)
	msg := sum["id"].(string)
	if sum["accountId"] != id || sum["subject"] != "hello" || sum["seen"] != false || sum["@type"] != "Message" ||
		sum["from"].(map[string]any)["address"] != "bob@example.com" || sum["from"].(map[string]any)["name"] != "Bob" ||
		sum["downloadUrl"] != "/messages/"+msg+"/download" || sum["@id"] != "/messages/"+msg ||
		!strings.Contains(sum["intro"].(string), "123456") {
		t.Errorf("a message listed: %v", sum)
	}
	// Clients written for mail.tm join @id and downloadUrl to their base
	// URL, the family's root, to follow them.
	if got := h.Do("GET", mailtmBase+sum["downloadUrl"].(string), "", bearer(token)...); got.Status != 200 ||
		!strings.Contains(string(got.Body), "Subject: hello") {
		t.Errorf("the base URL and downloadUrl joined: %d %s", got.Status, got.Body)
	}
	if got := h.Do("GET", mailtmBase+sum["@id"].(string), "", bearer(token)...).JSON(t); got["id"] != msg {
		t.Errorf("the base URL and @id joined: %v", got)
	}
	r = h.Do("GET", mailtmBase+"/messages?page=1", "", asJSON(bearer(token)...)...)
	var plain []map[string]any
	if err := json.Unmarshal(r.Body, &plain); err != nil || len(plain) != 1 || plain[0]["id"] != msg || plain[0]["@id"] != nil {
		t.Errorf("the list in JSON: %s", r.Body)
	}
	if v := h.Do("GET", mailtmBase+"/messages?page=2", "", bearer(token)...).JSON(t); v["hydra:totalItems"] != 1.0 ||
		len(v["hydra:member"].([]any)) != 0 {
		t.Errorf("page 2: %v", v)
	}

	full := h.Do("GET", mailtmBase+"/messages/"+msg, "", bearer(token)...).JSON(t)
	if full["msgid"] != "<m1@example.com>" || !strings.Contains(full["html"].([]any)[0].(string), "123456") ||
		full["seen"] != false || full["@context"] != "/contexts/Message" || full["retention"] != true {
		t.Errorf("the message: %v", full)
	}
	r = h.Do("PATCH", mailtmBase+"/messages/"+msg, `{"seen":true}`,
		append(bearer(token), "Content-Type", "application/merge-patch+json")...)
	if r.Status != http.StatusOK || r.JSON(t)["seen"] != true {
		t.Errorf("PATCH seen: %d %s", r.Status, r.Body)
	}
	r = h.Do("PATCH", mailtmBase+"/messages/"+msg, `{"seen":false}`, append(bearer(token), "Content-Type", apitest.JSONType)...)
	h.Expect(r, http.StatusUnprocessableEntity, "")
	src := h.Do("GET", mailtmBase+"/sources/"+msg, "", bearer(token)...).JSON(t)
	if !strings.Contains(src["data"].(string), "Subject: hello") || src["@type"] != "Source" {
		t.Errorf("the source: %v", src)
	}
	r = h.Do("GET", mailtmBase+"/messages/"+msg+"/download", "", bearer(token)...)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Subject: hello") {
		t.Errorf("download: %d %.100s", r.Status, r.Body)
	}
	h.Expect(h.Do("DELETE", mailtmBase+"/messages/"+msg, "", bearer(token)...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", mailtmBase+"/messages/"+msg, "", bearer(token)...), http.StatusNotFound, "")
	h.Expect(h.Do("DELETE", mailtmBase+"/accounts/"+id, "", bearer(token)...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", mailtmBase+"/me", "", bearer(token)...), http.StatusUnauthorized,
		`{"code":401,"message":"Invalid JWT Token"}`)
}

// Errors in the original's shapes: 401 without or with a bad token or
// credentials, 404, 422 with violations, 400 for a bad page; every input
// bounded.
func TestMailTMErrorsAndBounds(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	mailtmAccount(h, "bob@tempmail.test", "right")
	ct := []string{"Content-Type", apitest.JSONType}

	h.Expect(h.Do("GET", mailtmBase+"/me", ""), http.StatusUnauthorized, `{"code":401,"message":"JWT Token not found"}`)
	h.Expect(h.Do("GET", mailtmBase+"/messages", "", bearer("no-such-token")...), http.StatusUnauthorized,
		`{"code":401,"message":"Invalid JWT Token"}`)
	h.Expect(h.Do("GET", mailtmBase+"/messages", "", bearer(strings.Repeat("x", 300))...), http.StatusUnauthorized, "")
	h.Expect(h.Do("POST", mailtmBase+"/token", `{"address":"bob@tempmail.test","password":"wrong"}`, ct...),
		http.StatusUnauthorized, `{"code":401,"message":"Invalid credentials."}`)
	h.Expect(h.Do("POST", mailtmBase+"/token", `{"address":"nobody@tempmail.test","password":"right"}`, ct...),
		http.StatusUnauthorized, "")

	// An inbox of another family has no password: no login.
	_, addr := h.TokenInbox()
	h.Expect(h.Do("POST", mailtmBase+"/token", `{"address":"`+addr+`","password":"x"}`, ct...), http.StatusUnauthorized, "")

	r := h.Do("POST", mailtmBase+"/accounts", `{"address":"bob@tempmail.test","password":"again"}`, asJSON(ct...)...)
	h.Expect(r, http.StatusUnprocessableEntity, `{"type":"https://symfony.com/errors/validation","title":"An error occurred",`+
		`"detail":"address: This value is already used.","status":422,`+
		`"violations":[{"propertyPath":"address","message":"This value is already used."}]}`)
	r = h.Do("POST", mailtmBase+"/accounts", `{"address":"bob@tempmail.test","password":"again"}`, ct...)
	if v := r.JSON(t); r.Status != 422 || v["@type"] != "ConstraintViolationList" || v["violations"] == nil {
		t.Errorf("422 in JSON-LD: %d %s", r.Status, r.Body)
	}
	for _, body := range []string{
		`{}`,
		`{"address":"x@tempmail.test"}`,
		`{"address":"x@tempmail.test","password":""}`,
		`{"address":"x@tempmail.test","password":"` + strings.Repeat("p", 129) + `"}`,
		`{"address":"x@tempmail.test","password":7}`,
		`{"address":"` + strings.Repeat("a", 250) + `@tempmail.test","password":"p"}`,
		`{"address":"no-at-sign","password":"p"}`,
		`{"address":"a@b@tempmail.test","password":"p"}`,
		`{"address":"bad name!@tempmail.test","password":"p"}`,
		`{"address":"x@elsewhere.test","password":"p"}`,
	} {
		if r := h.Do("POST", mailtmBase+"/accounts", body, ct...); r.Status != http.StatusUnprocessableEntity ||
			!strings.Contains(string(r.Body), "violations") {
			t.Errorf("POST /accounts %.80s: %d %s", body, r.Status, r.Body)
		}
	}
	h.Expect(h.Do("POST", mailtmBase+"/accounts", `{"address":`, ct...), http.StatusBadRequest, "")
	h.Expect(h.Do("POST", mailtmBase+"/accounts", `{"address":"x@tempmail.test","password":"`+strings.Repeat("p", 128)+`"}`, ct...),
		http.StatusCreated, "")
	_, token := mailtmAccount(h, "carol@tempmail.test", "pw")
	for _, page := range []string{"0", "-1", "x", "99999999", strconv.Itoa(1 << 40)} {
		h.Expect(h.Do("GET", mailtmBase+"/messages?page="+page, "", bearer(token)...), http.StatusBadRequest, "")
	}
	r = h.Do("GET", mailtmBase+"/messages/not-an-id", "", bearer(token)...)
	h.Expect(r, http.StatusNotFound, "")
	if v := r.JSON(t); v["@type"] != "hydra:Error" || v["hydra:description"] != "Not Found" {
		t.Errorf("404 in JSON-LD: %s", r.Body)
	}
	h.Expect(h.Do("GET", mailtmBase+"/accounts/0190f0f0-0000-7000-8000-000000000000", "", asJSON(bearer(token)...)...),
		http.StatusNotFound, `{"type":"https://tools.ietf.org/html/rfc2616#section-10","title":"An error occurred","detail":"Not Found","status":404}`)
	h.Expect(h.Do("GET", mailtmBase+"/messages/x/attachment/ATTACH000001", "", bearer(token)...), http.StatusNotFound, "")
}

// One account's token never reaches another's account or messages, nor a
// tenant's key another tenant's: 404 as for what does not exist. A key
// makes accounts for its tenant and reaches them by id; a read key
// cannot make or delete.
func TestMailTMIsolation(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	keyA, _ := h.NewKey(h.NewTenant("a", ""), `["inboxes"]`)
	keyB, _ := h.NewKey(h.NewTenant("b", ""), `["inboxes"]`)
	readA, _ := h.NewKey(h.NewTenant("ra", ""), `["read"]`)

	idA, tokA := mailtmAccount(h, "ann@tempmail.test", "pw-a", bearer(keyA)...)
	idB, tokB := mailtmAccount(h, "ben@tempmail.test", "pw-b", bearer(keyB)...)
	h.SendMail("ann@tempmail.test", "Subject: for ann\r\n\r\nsecret 424242\r\n")
	h.WaitLatest(tokA, "")
	list := h.Do("GET", mailtmBase+"/messages", "", bearer(tokA)...).JSON(t)["hydra:member"].([]any)
	if len(list) != 1 {
		t.Fatalf("ann's messages: %v", list)
	}
	msg := list[0].(map[string]any)["id"].(string)

	// Ann's key reaches her account and message by id.
	h.Expect(h.Do("GET", mailtmBase+"/accounts/"+idA, "", bearer(keyA)...), http.StatusOK, "")
	h.Expect(h.Do("GET", mailtmBase+"/messages/"+msg, "", bearer(keyA)...), http.StatusOK, "")
	// A key names no account of its own.
	h.Expect(h.Do("GET", mailtmBase+"/messages", "", bearer(keyA)...), http.StatusUnauthorized, "")

	for _, who := range []struct {
		name string
		auth []string
	}{{"ben's token", bearer(tokB)}, {"tenant b's key", bearer(keyB)}} {
		for _, c := range []struct{ method, path string }{
			{"GET", "/accounts/" + idA},
			{"DELETE", "/accounts/" + idA},
			{"GET", "/messages/" + msg},
			{"PATCH", "/messages/" + msg},
			{"DELETE", "/messages/" + msg},
			{"GET", "/sources/" + msg},
			{"GET", "/messages/" + msg + "/download"},
		} {
			r := h.Do(c.method, mailtmBase+c.path, `{"seen":true}`, append(who.auth, "Content-Type", apitest.JSONType)...)
			if r.Status != http.StatusNotFound {
				t.Errorf("%s: %s %s: %d, want 404", who.name, c.method, c.path, r.Status)
			}
		}
	}
	// Ben's own list holds nothing of Ann's.
	if v := h.Do("GET", mailtmBase+"/messages", "", bearer(tokB)...).JSON(t); v["hydra:totalItems"] != 0.0 {
		t.Errorf("ben's list: %v", v)
	}
	_ = idB

	// A read key neither makes accounts nor deletes.
	h.Expect(h.Do("POST", mailtmBase+"/accounts", `{"address":"rita@tempmail.test","password":"p"}`,
		append(bearer(readA), "Content-Type", apitest.JSONType)...), http.StatusForbidden, "")
	// An unknown key is refused.
	h.Expect(h.Do("GET", mailtmBase+"/domains", "", bearer("tm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")...), http.StatusUnauthorized, "")
	// Ann's message is still there.
	h.Expect(h.Do("GET", mailtmBase+"/messages/"+msg, "", bearer(tokA)...), http.StatusOK, "")
}

// Accounts are inboxes: --anonymous off refuses a keyless client's, and
// the per-client creation limit answers 429 with Retry-After.
func TestMailTMCreationLimits(t *testing.T) {
	t.Parallel()
	off := apitest.New(t, func(c *config.Config) { c.AnonymousOff = true })
	off.Expect(off.Do("POST", mailtmBase+"/accounts", `{"address":"x@tempmail.test","password":"p"}`, "Content-Type", apitest.JSONType),
		http.StatusUnauthorized, "")

	h := apitest.New(t, func(c *config.Config) { c.CreateRatePerClient = config.Rate{N: 1, Per: 3600e9} })
	h.Expect(h.Do("POST", mailtmBase+"/accounts", `{"address":"one@tempmail.test","password":"p"}`, "Content-Type", apitest.JSONType),
		http.StatusCreated, "")
	r := h.Do("POST", mailtmBase+"/accounts", `{"address":"two@tempmail.test","password":"p"}`, "Content-Type", apitest.JSONType)
	h.Expect(r, http.StatusTooManyRequests, "")
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After")
	}
	// Logins have a share of their own: the client's creations are spent,
	// and it may still log in.
	h.Expect(h.Do("POST", mailtmBase+"/token", `{"address":"one@tempmail.test","password":"p"}`, "Content-Type", apitest.JSONType),
		http.StatusOK, "")
}

// Logins (POST /token) are bounded by --login-rate-per-client even with
// --create-rate-per-client 0, as load tests set it: a burst of wrong
// passwords beyond the share is answered 429 in mail.tm's error shape, and
// so is the right password then. (The share is an hour's, not the default
// minute's, so that none refills while the slow hashes run under -race.)
func TestMailTMLoginsHaveTheirOwnLimit(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) {
		c.CreateRatePerClient = config.Rate{}
		c.LoginRatePerClient = config.Rate{N: 10, Per: time.Hour}
	})
	h.Expect(h.Do("POST", mailtmBase+"/accounts", `{"address":"guess@tempmail.test","password":"right"}`, "Content-Type", apitest.JSONType),
		http.StatusCreated, "")
	wrong := `{"address":"guess@tempmail.test","password":"wrong"}`
	statuses := map[int]int{}
	var refused apitest.Response
	for range 15 {
		r := h.Do("POST", mailtmBase+"/token", wrong, "Content-Type", apitest.JSONType, "Accept", apitest.JSONType)
		statuses[r.Status]++
		if r.Status == http.StatusTooManyRequests {
			refused = r
		}
	}
	if statuses[http.StatusUnauthorized] != 10 || statuses[http.StatusTooManyRequests] != 5 {
		t.Fatalf("15 wrong passwords: %v, want 10 answered 401 and 5 answered 429", statuses)
	}
	var body struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Status int    `json:"status"`
	}
	if err := json.Unmarshal(refused.Body, &body); err != nil {
		t.Fatalf("429 body %s: %v", refused.Body, err)
	}
	if body.Status != http.StatusTooManyRequests || body.Title != "An error occurred" || body.Type == "" ||
		!strings.Contains(body.Detail, "too many logins from your address (at most 10 an hour)") {
		t.Errorf("429 is not in mail.tm's shape: %s", refused.Body)
	}
	if refused.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After: %v", refused.Header)
	}
	h.Expect(h.Do("POST", mailtmBase+"/token", `{"address":"guess@tempmail.test","password":"right"}`, "Content-Type", apitest.JSONType),
		http.StatusTooManyRequests, "")
}

// Accept decides the format: JSON when application/json is preferred,
// JSON-LD otherwise (the default, */*, ld+json first or higher).
func TestMailTMNegotiatesTheFormat(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for accept, wantLD := range map[string]bool{
		"":                                      true,
		"*/*":                                   true,
		"application/ld+json":                   true,
		"application/json":                      false,
		"application/json, application/ld+json": false,
		"application/ld+json;q=0.5, application/json;q=0.9": false,
		"application/json;q=0.5, application/ld+json":       true,
		"text/html":                              true,
		strings.Repeat("application/json,", 100): true, // past the bound: the default
	} {
		r := h.Do("GET", mailtmBase+"/domains/1", "", "Accept", accept)
		_, isLD := r.JSON(t)["@id"]
		if isLD != wantLD || strings.HasPrefix(r.Header.Get("Content-Type"), "application/ld+json") != wantLD {
			t.Errorf("Accept %.40q: %s %s, want JSON-LD %v", accept, r.Header.Get("Content-Type"), r.Body, wantLD)
		}
	}
}

// mailtmTour calls every operation of the family once, for
// TestEveryOperationAnswersAsDocumented (the harness checks each answer).
func mailtmTour(h *apitest.Harness) {
	h.T.Helper()
	id, token := mailtmAccount(h, "tour-mailtm@tempmail.test", "pw")
	events := h.OpenStream(mailtmBase+"/.well-known/mercure?topic=/accounts/"+id, "", bearer(token)...)
	h.SendMail("tour-mailtm@tempmail.test", apitest.MultipartMail("tour-mailtm@tempmail.test"))
	msg := h.WaitLatest(token, "")["id"].(string)
	events.Next()
	events.Close()
	auth := append(bearer(token), "Content-Type", apitest.JSONType)
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/domains", "", 200},
		{"GET", "/domains/1", "", 200},
		{"POST", "/accounts", `{"address":"tour-mailtm@tempmail.test","password":"pw"}`, 422},
		{"POST", "/token", `{"address":"tour-mailtm@tempmail.test","password":"no"}`, 401},
		{"GET", "/me", "", 200},
		{"GET", "/accounts/" + id, "", 200},
		{"GET", "/messages", "", 200},
		{"GET", "/messages/" + msg, "", 200},
		{"PATCH", "/messages/" + msg, `{"seen":true}`, 200},
		{"GET", "/messages/" + msg + "/download", "", 200},
		{"GET", "/messages/" + msg + "/attachment/ATTACH000001", "", 200},
		{"GET", "/sources/" + msg, "", 200},
		{"GET", "/.well-known/mercure?topic=/elsewhere", "", 400},
		{"DELETE", "/messages/" + msg, "", 204},
		{"DELETE", "/accounts/" + id, "", 204},
	} {
		for _, accept := range []string{"application/ld+json", "application/json"} {
			if c.method == "DELETE" && accept == "application/json" {
				continue
			}
			if r := h.Do(c.method, mailtmBase+c.path, c.body, append(auth, "Accept", accept)...); r.Status != c.status {
				h.T.Errorf("%s %s (%s): %d, want %d; %.200s", c.method, c.path, accept, r.Status, c.status, r.Body)
			}
		}
	}
}

// The Mercure hub: a new message is an unnamed event (onmessage's) with
// the message as lists show it, and so is one read or deleted; another
// account's topic is 404.
func TestMailTMEventsPushNewMail(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	id, token := mailtmAccount(h, "eve@tempmail.test", "pw")
	_, other := mailtmAccount(h, "oscar@tempmail.test", "pw")
	h.Expect(h.Do("GET", mailtmBase+"/.well-known/mercure?topic=/accounts/"+id, "", bearer(other)...), http.StatusNotFound, "")
	h.Expect(h.Do("GET", mailtmBase+"/.well-known/mercure?topic=/elsewhere", "", bearer(token)...), http.StatusBadRequest, "")
	h.Expect(h.Do("GET", mailtmBase+"/.well-known/mercure?topic=/accounts/"+id, ""), http.StatusUnauthorized, "")

	s := h.OpenStream(mailtmBase+"/.well-known/mercure?topic=/accounts/"+id, "", bearer(token)...)
	h.SendMail("eve@tempmail.test", "Subject: pushed\r\n\r\nhello\r\n")
	ev := s.Next()
	if ev.Name != "message" || ev.Data["subject"] != "pushed" || ev.Data["@type"] != "Message" || ev.Data["accountId"] != id {
		t.Errorf("event %q %v", ev.Name, ev.Data)
	}
	// Read, then deleted: the same message again, seen, then isDeleted,
	// which is how mail.tm clients tell the three apart.
	msg, _ := ev.Data["id"].(string)
	h.Expect(h.Do("PATCH", mailtmBase+"/messages/"+msg, `{"seen":true}`, bearer(token)...), http.StatusOK, "")
	if ev := s.Next(); ev.Name != "message" || ev.Data["id"] != msg || ev.Data["@id"] != "/messages/"+msg ||
		ev.Data["seen"] != true || ev.Data["isDeleted"] != false || ev.Data["accountId"] != id {
		t.Errorf("after seen: event %q %v", ev.Name, ev.Data)
	}
	h.Expect(h.Do("DELETE", mailtmBase+"/messages/"+msg, "", bearer(token)...), http.StatusNoContent, "")
	if ev := s.Next(); ev.Name != "message" || ev.Data["id"] != msg || ev.Data["isDeleted"] != true {
		t.Errorf("after delete: event %q %v", ev.Name, ev.Data)
	}
	s.Close()
}

// TestEveryOperationAnswersAsDocumented: each of the family's operations,
// called once, answers as the OpenAPI document says.
func TestEveryOperationAnswersAsDocumented(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	mailtmTour(h)
	for _, op := range h.Unanswered(func(path string) bool { return strings.HasPrefix(path, "/compat/mailtm/") }) {
		t.Errorf("operation %s was not called: add a call to the tour", op)
	}
}
