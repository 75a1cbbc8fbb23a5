package mailslurp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"tempmail/service/apitest"
)

// The MailSlurp family (package api/compat/mailslurp) as its SDK calls it; the
// SDK itself drives it in cmd/tempmail/compat_mailslurp_test.go.

const mailslurp = "/compat/mailslurp"

// mailslurpKey is the x-api-key header of key, with a JSON body.
func mailslurpKey(key string) []string {
	return []string{"x-api-key", key, "Content-Type", apitest.JSONType}
}

// mailslurpInbox makes an inbox with key and returns its id and address.
func mailslurpInbox(h *apitest.Harness, key, query string) (id, address string) {
	h.T.Helper()
	r := h.Do("POST", mailslurp+"/inboxes"+query, "", mailslurpKey(key)...)
	if r.Status != http.StatusCreated {
		h.T.Fatalf("createInbox: %d %s", r.Status, r.Body)
	}
	v := r.JSON(h.T)
	return v["id"].(string), v["emailAddress"].(string)
}

func TestMailSlurpInboxesAndMail(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it counts the requests held open
	tenant := h.NewTenant("slurp", "")
	key, _ := h.NewKey(tenant, `["inboxes"]`)
	as := mailslurpKey(key)

	id, addr := mailslurpInbox(h, key, "?name=ignored&tags=a&tags=b&expiresIn=600000")
	r := h.Do("GET", mailslurp+"/inboxes/"+id, "", as...)
	h.Expect(r, http.StatusOK, "")
	if v := r.JSON(t); v["emailAddress"] != addr || v["userId"] != tenant || !strings.HasSuffix(addr, "@tempmail.test") {
		t.Errorf("getInbox: %s", r.Body)
	}
	r = h.Do("POST", mailslurp+"/inboxes/withOptions", `{"emailAddress":"Chosen@Other.test","name":"x","tags":["t"]}`, as...)
	h.Expect(r, http.StatusCreated, "")
	if v := r.JSON(t); v["emailAddress"] != "chosen@other.test" || v["localPart"] != "chosen" || v["domain"] != "other.test" {
		t.Errorf("createInboxWithOptions: %s", r.Body)
	}
	h.Expect(h.Do("POST", mailslurp+"/inboxes/withOptions", `{"emailAddress":"chosen@other.test"}`, as...), http.StatusConflict, "")
	h.Expect(h.Do("POST", mailslurp+"/inboxes?domainName=nowhere.test", "", as...), http.StatusBadRequest, "")
	h.Expect(h.Do("POST", mailslurp+"/inboxes?expiresIn=1", "", as...), http.StatusBadRequest, "")
	h.Expect(h.Do("POST", mailslurp+"/inboxes?emailAddress="+strings.Repeat("a", 400)+"@tempmail.test", "", as...), http.StatusBadRequest, "")
	r = h.Do("GET", mailslurp+"/inboxes", "", as...)
	var inboxes []map[string]any
	if err := json.Unmarshal(r.Body, &inboxes); err != nil || len(inboxes) != 2 || inboxes[1]["id"] != id {
		t.Errorf("getInboxes: %d %s", r.Status, r.Body)
	}

	// A wait held before the mail comes, answered when it does.
	held := h.Start("GET", mailslurp+"/waitForLatestEmail?inboxId="+id+"&timeout=30000&unreadOnly=true", "", as...)
	h.WaitHeld(1)
	h.SendMail(addr, apitest.MultipartMail(addr))
	got := <-held
	if got.Status != http.StatusOK {
		t.Fatalf("waitForLatestEmail: %d %s", got.Status, got.Body)
	}
	var email map[string]any
	_ = json.Unmarshal(got.Body, &email)
	emailID := email["id"].(string)
	if email["subject"] != "Prüfung ✓" || email["isHTML"] != true || !strings.Contains(email["body"].(string), "<b>739201</b>") ||
		email["from"] != "joerg@example.com" || email["inboxId"] != id || email["read"] != true ||
		fmt.Sprint(email["to"]) != "["+addr+"]" || fmt.Sprint(email["cc"]) != "[cc@example.org]" || len(email["attachments"].([]any)) != 1 {
		t.Errorf("the email: %s", got.Body)
	}
	// Read now: unreadOnly finds nothing, and says so with 408.
	r = h.Do("GET", mailslurp+"/waitForLatestEmail?inboxId="+id+"&timeout=0&unreadOnly=true", "", as...)
	h.Expect(r, http.StatusRequestTimeout, "")
	if !strings.Contains(r.JSON(t)["message"].(string), "Failed to satisfy email query for inbox "+id) {
		t.Errorf("408: %s", r.Body)
	}
	h.Expect(h.Do("GET", mailslurp+"/waitForLatestEmail?inboxId="+id+"&timeout=0", "", as...), http.StatusOK, "")

	// A second email; the nth and the first matching.
	h.SendMail(addr, "From: Shop <shop@example.com>\r\nTo: "+addr+"\r\nSubject: Your code\r\n\r\nYour code is 482913.\r\nVisit https://shop.example/v?t=1\r\n")
	r = h.Do("GET", mailslurp+"/waitForNthEmail?inboxId="+id+"&index=1&timeout=10000", "", as...)
	h.Expect(r, http.StatusOK, "")
	second := r.JSON(t)["id"].(string)
	if r.JSON(t)["subject"] != "Your code" || r.JSON(t)["isHTML"] != false {
		t.Errorf("waitForNthEmail 1: %s", r.Body)
	}
	if r := h.Do("GET", mailslurp+"/waitForNthEmail?inboxId="+id+"&index=0", "", as...); r.Status != http.StatusOK || r.JSON(t)["id"] != emailID {
		t.Errorf("waitForNthEmail 0: %d %s", r.Status, r.Body)
	}
	r = h.Do("POST", mailslurp+"/waitForMatchingFirstEmail?inboxId="+id+"&timeout=1000",
		`{"matches":[{"field":"SUBJECT","should":"CONTAIN","value":"code"},{"field":"FROM","should":"EQUAL","value":"SHOP@example.com"}]}`, as...)
	h.Expect(r, http.StatusOK, "")
	if r.JSON(t)["id"] != second {
		t.Errorf("waitForMatchingFirstEmail: %s", r.Body)
	}
	h.Expect(h.Do("POST", mailslurp+"/waitForMatchingFirstEmail?inboxId="+id+"&timeout=0",
		`{"matches":[{"field":"TO","should":"EQUAL","value":"someone@else.test"}]}`, as...), http.StatusRequestTimeout, "")
	h.Expect(h.Do("POST", mailslurp+"/waitForMatchingFirstEmail?inboxId="+id,
		`{"matches":[{"field":"HEADERS","should":"CONTAIN","value":"x"}]}`, as...), http.StatusBadRequest, "")
	h.Expect(h.Do("POST", mailslurp+"/waitForMatchingFirstEmail?inboxId="+id,
		`{"conditions":[{"condition":"HAS_ATTACHMENTS","value":"TRUE"}]}`, as...), http.StatusBadRequest, "")

	// Counted waits: previews, oldest first.
	r = h.Do("GET", mailslurp+"/waitForEmailCount?inboxId="+id+"&count=2&timeout=5000", "", as...)
	var many []map[string]any
	if err := json.Unmarshal(r.Body, &many); err != nil || len(many) != 2 || many[0]["id"] != emailID || many[1]["id"] != second {
		t.Errorf("waitForEmailCount: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("GET", mailslurp+"/waitForEmailCount?inboxId="+id+"&count=3&timeout=0", "", as...), http.StatusRequestTimeout, "")
	h.Expect(h.Do("GET", mailslurp+"/waitForEmailCount?inboxId="+id, "", as...), http.StatusBadRequest, "")
	r = h.Do("POST", mailslurp+"/waitForMatchingEmails?inboxId="+id+"&count=1&timeout=5000",
		`{"matches":[{"field":"FROM","should":"CONTAIN","value":"shop@"}]}`, as...)
	if err := json.Unmarshal(r.Body, &many); err != nil || len(many) != 1 || many[0]["id"] != second {
		t.Errorf("waitForMatchingEmails: %d %s", r.Status, r.Body)
	}

	// The inbox's emails, oldest first, and with minCount met.
	r = h.Do("GET", mailslurp+"/inboxes/"+id+"/emails?minCount=2&retryTimeout=5000", "", as...)
	var list []map[string]any
	if err := json.Unmarshal(r.Body, &list); err != nil || len(list) != 2 || list[0]["id"] != emailID || list[1]["id"] != second {
		t.Errorf("getEmails: %d %s", r.Status, r.Body)
	}
	h.Expect(h.Do("GET", mailslurp+"/inboxes/"+id+"/emails?minCount=3&retryTimeout=0", "", as...), http.StatusRequestTimeout, "")
	r = h.Do("GET", mailslurp+"/inboxes/"+id+"/emails?sort=DESC&limit=1", "", as...)
	if err := json.Unmarshal(r.Body, &list); err != nil || len(list) != 1 || list[0]["id"] != second {
		t.Errorf("getEmails DESC: %d %s", r.Status, r.Body)
	}

	// What the SDK finds in an email.
	e := mailslurp + "/emails/" + second
	h.Expect(h.Do("POST", e+"/codes", "", as...), http.StatusOK,
		`{"found":true,"code":"482913","methodUsed":"PATTERN","candidates":[{"code":"482913","confidence":1,"method":"PATTERN","source":"TEXT"}],"warnings":[]}`)
	h.Expect(h.Do("POST", e+"/codes", `{"customPatterns":["code is (\\d+)"],"method":"LLM"}`, as...), http.StatusOK,
		`{"found":true,"code":"482913","methodUsed":"PATTERN","candidates":[{"code":"482913","confidence":1,"method":"PATTERN","source":"TEXT"}],"warnings":["method LLM is not supported here: PATTERN was used"]}`)
	h.Expect(h.Do("POST", e+"/codes", `{"customPatterns":["("]}`, as...), http.StatusBadRequest, "")
	h.Expect(h.Do("POST", e+"/contentMatch", `{"pattern":"code is ([0-9]{6})"}`, as...), http.StatusOK,
		`{"pattern":"code is ([0-9]{6})","matches":["code is 482913","482913"]}`)
	h.Expect(h.Do("POST", e+"/contentMatch", `{"pattern":"nothing"}`, as...), http.StatusOK, `{"pattern":"nothing","matches":[]}`)
	h.Expect(h.Do("POST", e+"/contentMatch", `{}`, as...), http.StatusBadRequest, "")
	h.Expect(h.Do("GET", e+"/textLines", "", as...), http.StatusOK, "")
	if r := h.Do("GET", e+"/textLines", "", as...).JSON(t); fmt.Sprint(r["lines"]) != "[Your code is 482913. Visit https://shop.example/v?t=1]" {
		t.Errorf("textLines: %v", r)
	}
	if r := h.Do("GET", e+"/links", "", as...).JSON(t); fmt.Sprint(r["links"]) != "[https://shop.example/v?t=1]" {
		t.Errorf("links: %v", r)
	}
	first := mailslurp + "/emails/" + emailID
	r = h.Do("GET", first+"/attachments", "", as...)
	var atts []map[string]any
	if err := json.Unmarshal(r.Body, &atts); err != nil || len(atts) != 1 || atts[0]["name"] != "report.pdf" {
		t.Fatalf("attachments: %d %s", r.Status, r.Body)
	}
	r = h.Do("GET", first+"/attachments/"+atts[0]["id"].(string), "", as...)
	if r.Status != http.StatusOK || string(r.Body) != string([]byte(apitest.PDF)) {
		t.Errorf("downloadAttachment: %d %q", r.Status, r.Body)
	}
	h.Expect(h.Do("GET", first+"/attachments/nothing", "", as...), http.StatusBadRequest, "")
	h.Expect(h.Do("GET", first+"/attachments/"+emailID+"-9", "", as...), http.StatusNotFound, "")

	// Deleted: the email, the rest, then the inbox.
	h.Expect(h.Do("DELETE", e, "", as...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", e, "", as...), http.StatusNotFound, "")
	h.Expect(h.Do("DELETE", mailslurp+"/emptyInbox", "", as...), http.StatusBadRequest, "")
	h.Expect(h.Do("DELETE", mailslurp+"/emptyInbox?inboxId="+id, "", as...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", mailslurp+"/inboxes/"+id+"/emails", "", as...), http.StatusOK, "[]")
	h.Expect(h.Do("GET", mailslurp+"/inboxes/"+id, "", as...), http.StatusOK, "")
	h.Expect(h.Do("DELETE", mailslurp+"/inboxes/"+id, "", as...), http.StatusNoContent, "")
	h.Expect(h.Do("GET", mailslurp+"/inboxes/"+id, "", as...), http.StatusNotFound, "")
	h.Expect(h.Do("GET", first, "", as...), http.StatusNotFound, "")
}

// A tenant's key never reaches another tenant's inboxes and mail through
// the family (404, as for none); a read key reads and cannot make or
// delete; no key, or a bad one, is 401; an endpoint the family does not
// serve is 501, naming it. Every error in MailSlurp's shape.
func TestMailSlurpKeysAndErrors(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tenant := h.NewTenant("owner", "")
	key, _ := h.NewKey(tenant, `["inboxes"]`)
	reader, _ := h.NewKey(tenant, `["read"]`)
	other, _ := h.NewKey(h.NewTenant("other", ""), `["inboxes"]`)
	id, addr := mailslurpInbox(h, key, "")
	h.SendMail(addr, apitest.MultipartMail(addr))
	r := h.Do("GET", mailslurp+"/waitForLatestEmail?inboxId="+id+"&timeout=10000", "", mailslurpKey(reader)...)
	h.Expect(r, http.StatusOK, "")
	emailID := r.JSON(t)["id"].(string)
	att := r.JSON(t)["attachments"].([]any)[0].(string)

	for _, c := range []struct{ method, path, body string }{
		{"GET", "/inboxes/" + id, ""},
		{"DELETE", "/inboxes/" + id, ""},
		{"GET", "/inboxes/" + id + "/emails", ""},
		{"GET", "/waitForLatestEmail?inboxId=" + id + "&timeout=0", ""},
		{"GET", "/waitForNthEmail?inboxId=" + id + "&timeout=0", ""},
		{"POST", "/waitForMatchingFirstEmail?inboxId=" + id + "&timeout=0", `{"matches":[]}`},
		{"GET", "/emails/" + emailID, ""},
		{"DELETE", "/emails/" + emailID, ""},
		{"POST", "/emails/" + emailID + "/codes", ""},
		{"POST", "/emails/" + emailID + "/contentMatch", `{"pattern":"x"}`},
		{"GET", "/emails/" + emailID + "/textLines", ""},
		{"GET", "/emails/" + emailID + "/links", ""},
		{"GET", "/emails/" + emailID + "/attachments", ""},
		{"GET", "/emails/" + emailID + "/attachments/" + att, ""},
		{"GET", "/emails/" + emailID + "/attachments/" + att + "/base64", ""},
		{"GET", "/emails/" + emailID + "/attachments/" + att + "/metadata", ""},
		{"GET", "/attachments/" + att, ""},
		{"GET", "/attachments/" + att + "/bytes", ""},
		{"GET", "/attachments/" + att + "/base64", ""},
		{"GET", "/attachments/" + att + "/metadata", ""},
		{"GET", "/emails/" + emailID + "/html", ""},
		{"GET", "/emails/" + emailID + "/html/json", ""},
		{"GET", "/emails/" + emailID + "/htmlQuery?htmlSelector=p", ""},
		{"GET", "/emails/" + emailID + "/raw", ""},
		{"GET", "/emails/" + emailID + "/raw/json", ""},
		{"PATCH", "/emails/" + emailID + "/read", ""},
		{"GET", "/emails/latestIn?inboxId=" + id, ""},
		{"GET", "/inboxes/" + id + "/emails/paginated", ""},
		{"GET", "/inboxes/" + id + "/emails/count", ""},
		{"DELETE", "/emptyInbox?inboxId=" + id, ""},
		{"DELETE", "/inboxes/" + id + "/deleteAllInboxEmails", ""},
	} {
		t.Run("another tenant's "+c.method+" "+c.path, func(t *testing.T) {
			t.Parallel()
			r := h.As(t).Do(c.method, mailslurp+c.path, c.body, mailslurpKey(other)...)
			if v := r.JSON(t); r.Status != http.StatusNotFound || v["status"] != float64(404) || v["error"] != "Not Found" {
				t.Errorf("with another tenant's key: %d %s, want 404", r.Status, r.Body)
			}
		})
	}
	// Its address is no inbox either, nor among its inboxes.
	h.Expect(h.Do("GET", mailslurp+"/inboxes/byEmailAddress?emailAddress="+addr, "", mailslurpKey(other)...), http.StatusOK,
		`{"inboxId":null,"exists":false}`)
	h.Expect(h.Do("GET", mailslurp+"/inboxes/byEmailAddress?emailAddress="+strings.ToUpper(addr), "", mailslurpKey(reader)...),
		http.StatusOK, `{"inboxId":"`+id+`","exists":true}`)
	if r := h.Do("GET", mailslurp+"/inboxes/paginated", "", mailslurpKey(other)...); r.JSON(t)["totalElements"] != float64(0) {
		t.Errorf("another tenant's getAllInboxes: %s", r.Body)
	}
	t.Run("a read key", func(t *testing.T) {
		t.Parallel()
		h := h.As(t)
		as := mailslurpKey(reader)
		for _, p := range []string{"/inboxes", "/inboxes/withOptions", "/inboxes/withDefaults"} {
			h.Expect(h.Do("POST", mailslurp+p, "", as...), http.StatusForbidden, `{"status":403,"error":"Forbidden","message":"this key has no inboxes scope"}`)
		}
		h.Expect(h.Do("DELETE", mailslurp+"/emails/"+emailID, "", as...), http.StatusForbidden, "")
		h.Expect(h.Do("DELETE", mailslurp+"/inboxes/"+id, "", as...), http.StatusForbidden, "")
		h.Expect(h.Do("DELETE", mailslurp+"/emptyInbox?inboxId="+id, "", as...), http.StatusForbidden, "")
		h.Expect(h.Do("PATCH", mailslurp+"/emails/"+emailID+"/read", "", as...), http.StatusForbidden, "")
		h.Expect(h.Do("GET", mailslurp+"/emails/"+emailID+"/raw", "", as...), http.StatusOK, "")
		h.Expect(h.Do("GET", mailslurp+"/emails/"+emailID, "", as...), http.StatusOK, "")
		h.Expect(h.Do("GET", mailslurp+"/inboxes", "", as...), http.StatusOK, "")
	})
	t.Run("no key or a bad one", func(t *testing.T) {
		t.Parallel()
		h := h.As(t)
		h.Expect(h.Do("GET", mailslurp+"/inboxes/"+id, ""), http.StatusUnauthorized, "")
		h.Expect(h.Do("GET", mailslurp+"/emails/"+emailID, "", "x-api-key", "tm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), http.StatusUnauthorized,
			`{"status":401,"error":"Unauthorized","message":"Invalid key: unknown, revoked or expired."}`)
		h.Expect(h.Do("GET", mailslurp+"/aliases", "", "x-api-key", "wrong"), http.StatusUnauthorized, "")
		h.Expect(h.Do("GET", mailslurp+"/inboxes/"+id, "", "Authorization", "Bearer "+key), http.StatusUnauthorized, "")
		// The API token is the admin's: it sees every inbox.
		h.Expect(h.Do("GET", mailslurp+"/inboxes/"+id, "", "x-api-key", apitest.TestToken), http.StatusOK, "")
	})
	t.Run("unsupported", func(t *testing.T) {
		t.Parallel()
		h := h.As(t)
		as := mailslurpKey(key)
		for _, c := range []struct{ method, path, name string }{
			{"POST", "/aliases", "POST /aliases"},
			{"GET", "/emails/unreadCount?inboxId=" + id, "GET /emails/unreadCount"},
			{"POST", "/inboxes/" + id + "/confirm", "POST /inboxes/" + id + "/confirm"},
			{"POST", "/inboxes/" + id, "POST /inboxes/" + id},
			{"PATCH", "/emails/read?read=true", "PATCH /emails/read"},
			{"DELETE", "/attachments/" + att, "DELETE /attachments/" + att},
			{"PUT", "/emails/" + emailID, "PUT /emails/" + emailID},
			{"POST", "/emptyInbox?inboxId=" + id, "POST /emptyInbox"},
		} {
			h.Expect(h.Do(c.method, mailslurp+c.path, "{}", as...), http.StatusNotImplemented,
				`{"status":501,"error":"Not Implemented","message":"`+c.name+` is not supported by tempmail's MailSlurp family"}`)
		}
	})
	t.Run("bounds", func(t *testing.T) {
		t.Parallel()
		h := h.As(t)
		as := mailslurpKey(key)
		for _, p := range []string{
			"/waitForLatestEmail?inboxId=" + id + "&timeout=-1",
			"/waitForLatestEmail?inboxId=" + id + "&unreadOnly=maybe",
			"/waitForLatestEmail?inboxId=" + id + "&since=yesterday",
			"/waitForLatestEmail",
			"/waitForNthEmail?inboxId=" + id + "&index=-1",
			"/inboxes/" + id + "/emails?size=0",
			"/inboxes/" + id + "/emails?sort=UP",
		} {
			h.Expect(h.Do("GET", mailslurp+p, "", as...), http.StatusBadRequest, "")
		}
		h.Expect(h.Do("GET", mailslurp+"/waitForLatestEmail?inboxId=nope&timeout=0", "", as...), http.StatusBadRequest, "")
		h.Expect(h.Do("GET", mailslurp+"/waitForLatestEmail?inboxId=0190f0f0-0000-7000-8000-000000000000&timeout=0", "", as...),
			http.StatusNotFound, "")
		h.Expect(h.Do("GET", mailslurp+"/emails/0190f0f0-0000-7000-8000-000000000000", "", as...), http.StatusNotFound, "")
		h.Expect(h.Do("POST", mailslurp+"/waitForMatchingFirstEmail?inboxId="+id, `{"matches":[{"field":"SUBJECT","should":"CONTAIN","value":"`+
			strings.Repeat("x", 300)+`"}]}`, as...), http.StatusBadRequest, "")
		h.Expect(h.Do("POST", mailslurp+"/emails/"+emailID+"/contentMatch", `{"pattern":"`+strings.Repeat("a", 600)+`"}`, as...), http.StatusBadRequest, "")
		h.Expect(h.Do("POST", mailslurp+"/emails/"+emailID+"/codes", `{"minLength":9,"maxLength":3}`, as...), http.StatusBadRequest, "")
		h.Expect(h.Do("POST", mailslurp+"/emails/"+emailID+"/codes", `x`, "x-api-key", key, "Content-Type", "text/plain"),
			http.StatusUnsupportedMediaType, "")
	})
}

// tourMailSlurp calls each of the family's operations once, for
// TestEveryOperationAnswersAsDocumented (the harness checks each answer).
func tourMailSlurp(t *testing.T, h *apitest.Harness) {
	key, _ := h.NewKey(h.NewTenant("slurp tour", ""), `["inboxes"]`)
	as := mailslurpKey(key)
	id, addr := mailslurpInbox(h, key, "")
	h.SendMail(addr, apitest.MultipartMail(addr))
	r := h.Do("GET", mailslurp+"/waitForLatestEmail?inboxId="+id+"&timeout=10000", "", as...)
	h.Expect(r, http.StatusOK, "")
	e := "/emails/" + r.JSON(t)["id"].(string)
	att := r.JSON(t)["attachments"].([]any)[0].(string)
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/inboxes/withOptions", `{"expiresIn":600000}`, 201},
		{"POST", "/inboxes/withDefaults", "", 201},
		{"GET", "/inboxes", "", 200},
		{"GET", "/inboxes/" + id, "", 200},
		{"GET", "/inboxes/" + id + "/emails", "", 200},
		{"GET", "/waitForNthEmail?inboxId=" + id + "&index=0", "", 200},
		{"POST", "/waitForMatchingFirstEmail?inboxId=" + id + "&timeout=0", `{"matches":[{"field":"SUBJECT","should":"EQUAL","value":"x"}]}`, 408},
		{"GET", "/waitForEmailCount?inboxId=" + id + "&count=1", "", 200},
		{"POST", "/waitForMatchingEmails?inboxId=" + id + "&count=1&timeout=0", `{"matches":[{"field":"TO","should":"CONTAIN","value":"@"}]}`, 200},
		{"GET", e, "", 200},
		{"POST", e + "/codes", "", 200},
		{"POST", e + "/contentMatch", `{"pattern":"code (\\d+)"}`, 200},
		{"GET", e + "/textLines", "", 200},
		{"GET", e + "/links", "", 200},
		{"GET", e + "/attachments", "", 200},
		{"GET", e + "/attachments/" + att, "", 200},
		{"GET", e + "/attachments/" + att + "/base64", "", 200},
		{"GET", e + "/attachments/" + att + "/metadata", "", 200},
		{"GET", "/attachments/" + att, "", 200},
		{"GET", "/attachments/" + att + "/bytes", "", 200},
		{"GET", "/attachments/" + att + "/base64", "", 200},
		{"GET", "/attachments/" + att + "/metadata", "", 200},
		{"GET", e + "/html", "", 200},
		{"GET", e + "/html/json", "", 200},
		{"GET", e + "/htmlQuery?htmlSelector=b", "", 200},
		{"GET", e + "/raw", "", 200},
		{"GET", e + "/raw/json", "", 200},
		{"PATCH", e + "/read?read=true", "", 200},
		{"GET", "/emails/latestIn?inboxId=" + id, "", 200},
		{"GET", "/inboxes/paginated?page=0&size=2&sort=DESC", "", 200},
		{"GET", "/inboxes/byEmailAddress?emailAddress=" + addr, "", 200},
		{"GET", "/inboxes/" + id + "/emails/paginated", "", 200},
		{"GET", "/inboxes/" + id + "/emails/count", "", 200},
		{"GET", "/nothing", "", 501},
		{"POST", "/nothing", "", 501},
		{"PUT", "/nothing", "", 501},
		{"PATCH", "/nothing", "", 501},
		{"DELETE", "/nothing", "", 501},
		{"DELETE", e, "", 204},
		{"DELETE", "/emptyInbox?inboxId=" + id, "", 204},
		{"DELETE", "/inboxes/" + id + "/deleteAllInboxEmails", "", 204},
		{"DELETE", "/inboxes/" + id, "", 204},
	} {
		t.Run("MailSlurp "+c.method+" "+c.path, func(t *testing.T) {
			if r := h.As(t).Do(c.method, mailslurp+c.path, c.body, as...); r.Status != c.status {
				t.Errorf("%d, want %d; %.200s", r.Status, c.status, r.Body)
			}
		})
	}
}

// OPTIONS is answered as on every served path: 204 with Allow, every
// method being served (the ones the family lacks with 501).
func TestMailSlurpOptions(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for _, p := range []string{"/inboxes", "/aliases"} {
		r := h.Do("OPTIONS", mailslurp+p, "")
		if r.Status != http.StatusNoContent || r.Header.Get("Allow") != "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS" {
			t.Errorf("OPTIONS %s: %d %q", p, r.Status, r.Header.Get("Allow"))
		}
	}
}

// TestEveryOperationAnswersAsDocumented: each of the family's operations,
// called once, answers as the OpenAPI document says.
func TestEveryOperationAnswersAsDocumented(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tourMailSlurp(t, h)
	for _, op := range h.Unanswered(func(path string) bool { return strings.HasPrefix(path, "/compat/mailslurp/") }) {
		t.Errorf("operation %s was not called: add a call to the tour", op)
	}
}
