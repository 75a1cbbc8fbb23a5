package api_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi/datamodel"

	"tempmail/api"
	"tempmail/config"
	"tempmail/service/apitest"
)

// TestOpenAPIDocumentIsValid: the document is OpenAPI 3.1 by the
// specification's own schema, every reference resolves, every path's
// parameters are declared, and it is indented as json.Indent writes it, so
// that hand edits keep one layout.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	doc, err := libopenapi.NewDocumentWithConfiguration([]byte(api.OpenAPIDocument()),
		&datamodel.DocumentConfiguration{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if v := doc.GetVersion(); !strings.HasPrefix(v, "3.1.") {
		t.Errorf("openapi %q, want 3.1.x", v)
	}
	v, errs := validator.NewValidator(doc)
	for _, err := range errs {
		t.Errorf("openapi.json: %v", err)
	}
	if v == nil {
		t.FailNow()
	}
	if ok, problems := v.ValidateDocument(); !ok {
		for _, p := range apitest.DescribeProblems(problems) {
			t.Errorf("openapi.json is not valid OpenAPI 3.1: %s", p)
		}
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}

	ids := map[string]string{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		inPath := map[string]bool{}
		for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1) {
			inPath[m[1]] = true
		}
		for method, op := range item.GetOperations().FromOldest() {
			declared := map[string]bool{}
			for _, p := range slices.Concat(item.Parameters, op.Parameters) {
				if p.In == "path" {
					declared[p.Name] = true
				}
			}
			if !sameKeys(inPath, declared) {
				t.Errorf("%s %s: path parameters declared %v, in the path %v", method, path, sortedKeys(declared), sortedKeys(inPath))
			}
			if op.OperationId == "" {
				t.Errorf("%s %s has no operationId", method, path)
			} else if other, dup := ids[op.OperationId]; dup {
				t.Errorf("operationId %s is used by %s and %s %s", op.OperationId, other, method, path)
			}
			ids[op.OperationId] = method + " " + path
			if op.Responses == nil || op.Responses.Codes.Len() == 0 {
				t.Errorf("%s %s has no responses", method, path)
			}
		}
	}

	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, []byte(api.OpenAPIDocument())); err != nil {
		t.Fatal(err)
	}
	_ = json.Indent(&indented, compact.Bytes(), "", "  ")
	indented.WriteByte('\n')
	if indented.String() != api.OpenAPIDocument() {
		t.Error("openapi.json is not indented as json.Indent(doc, \"\", \"  \") writes it (plus a final newline); " +
			"reformat it, e.g. with jq --indent 2 . or python3 -m json.tool --indent 2 --no-ensure-ascii")
	}
	if src, err := os.ReadFile("openapi.json"); err != nil || string(src) != api.OpenAPIDocument() {
		t.Errorf("the embedded document is not openapi.json as it is now (%v)", err)
	}
}

// TestOpenAPICoversEveryRoute: every route the server has is an operation
// of the document, and every operation a route, but for the routes being
// built elsewhere (undocumentedRoutes).
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	srv := api.New(api.Deps{Config: config.Default(), Log: slog.New(slog.DiscardHandler)})
	apitest.CheckRoutes(t, srv.Router())
}

// TestOpenAPIServed: GET /openapi.json answers the embedded document as
// JSON, without and with the trailing slash.
func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for _, p := range []string{"/openapi.json", "/openapi.json/"} {
		r := h.Do("GET", p, "")
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
			string(r.Body) != api.OpenAPIDocument() || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: %d %q, %d bytes", p, r.Status, r.Header.Get("Content-Type"), len(r.Body))
		}
	}
	h.Expect(h.Do("POST", "/openapi.json", "{}"), http.StatusMethodNotAllowed, `{"error":"Method \"POST\" not allowed."}`)
}

func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestEveryOperationAnswersAsDocumented calls every operation of the
// document at least once, with answers of its success and of its usual
// failures, so that each is checked against the document (the harness's
// client checks every answer); the other tests go deeper into each. An
// operation added to the document needs a call here.
func TestEveryOperationAnswersAsDocumented(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	auth := []string{"Authorization", "Token " + apitest.TestToken, "Content-Type", apitest.JSONType}
	none := "0190f0f0-0000-7000-8000-000000000000"

	// One inbox, made through family B, read through all three.
	b := h.Do("POST", "/api/create-temp-email/", `{"email_name":"tour"}`, "Content-Type", apitest.JSONType)
	h.Expect(b, http.StatusCreated, "")
	token, addr, inboxID := b.JSON(t)["token"].(string), b.JSON(t)["email"].(string), b.JSON(t)["inbox_id"].(string)
	streamA := h.OpenStream("/api/inboxes/"+inboxID+"/events/", "")
	streamC := h.OpenStream("/inboxes/"+token+"/events/", "")
	h.SendMail(addr, apitest.MultipartMail(addr))
	first := h.WaitLatest(token, "")["id"].(string)
	for _, subject := range []string{"second", "third 123456"} {
		h.Expect(h.Do("POST", "/api/webhook/email/", `{"to":"`+addr+`","from":"a@example.com","subject":"`+subject+`","text":"x"}`, auth...),
			http.StatusCreated, "")
	}
	var ids []string
	for _, m := range h.List(token) {
		ids = append(ids, m["id"].(string))
	}
	if len(ids) != 3 || ids[2] != first {
		t.Fatalf("the tour's inbox holds %v", ids)
	}
	for range 3 {
		streamA.Next()
		streamC.Next()
	}
	streamA.Close()
	streamC.Close()

	msgC := "/inboxes/" + token + "/messages/" + first + "/"
	msgB := "/api/mailstore/mailbox/tour/" + first + ".eml/"
	other := h.CreateInboxA(`{"domain_id":2,"ttl":600}`)["id"].(string)
	// Subscriptions to a public address (no delivery is due: no inbox
	// expires during the tour).
	global := subscribe(h, `{"url":"https://93.184.215.14/all","events":["inbox.expired"]}`)["id"].(string)
	r := h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"https://93.184.215.14/one","events":["inbox.expired"]}`, "Content-Type", apitest.JSONType)
	h.Expect(r, http.StatusCreated, "")
	own := r.JSON(t)["id"].(string)
	tenant := h.NewTenant("tour", "")
	tourKey, keyID := h.NewKey(tenant, `["read"]`)
	// One step after another, in order: a step may undo what one before
	// it made (a deletion, a 404 after it).
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		// Family A.
		{"GET", "/api/domains/", "", 200},
		{"POST", "/api/inboxes/create_inbox/", `{"domain_id":7}`, 404},
		{"GET", "/api/inboxes/" + inboxID + "/", "", 200},
		{"GET", "/api/inboxes/?email=" + addr, "", 200},
		{"GET", "/api/inboxes/?email=nobody@tempmail.test", "", 200},
		{"GET", "/api/inboxes/?email=no-at-sign", "", 400},
		{"GET", "/api/inboxes/" + none + "/", "", 404},
		{"POST", "/api/tenants/", `{"name":"tour two","quota":{"inboxes":3}}`, 201},
		{"POST", "/api/tenants/", `{"name":""}`, 400},
		{"POST", "/api/tenants/", `{"name":"tour three","domains":["tempmail.test"]}`, 409},
		{"GET", "/api/tenants/?limit=2", "", 200},
		{"GET", "/api/tenants/?limit=0", "", 400},
		{"GET", "/api/tenants/" + tenant + "/", "", 200},
		{"GET", "/api/tenants/" + none + "/", "", 404},
		{"GET", "/api/usage/", "", 200},
		{"GET", "/api/inboxes/?limit=5", "", 200},
		{"PATCH", "/api/tenants/" + tenant + "/", `{"quota":{"inboxes":5}}`, 200},
		{"POST", "/api/tenants/" + tenant + "/keys/", `{"name":"k","scopes":["read"]}`, 201},
		{"POST", "/api/tenants/" + tenant + "/keys/", `{"name":"k","scopes":["root"]}`, 400},
		{"GET", "/api/tenants/" + tenant + "/keys/", "", 200},
		{"POST", "/api/domains/", `{"name":"tour.example","tenant_id":"` + tenant + `","catch_all":true}`, 201},
		{"POST", "/api/domains/", `{"name":"tour.example"}`, 409},
		{"POST", "/api/faults/", `{"command":"MAIL","reply":"451 4.7.1 not now","from":"nobody@tour.example","expires_in":"1m"}`, 201},
		{"POST", "/api/faults/", `{"command":"NOOP","reply":"451 4.7.1 not now"}`, 400},
		{"GET", "/api/faults/", "", 200},
		{"DELETE", "/api/faults/00000000-0000-4000-8000-000000000000/", "", 404},
		{"GET", "/api/attempts/?rcpt=nobody@tempmail.test&since=2026-01-01T00:00:00Z", "", 200},
		{"GET", "/api/attempts/?since=yesterday", "", 400},
		{"POST", "/api/domains/", `{"name":"no dots"}`, 400},
		{"POST", "/api/domains/", `{"name":"t.example","tenant_id":"` + none + `"}`, 404},
		{"DELETE", "/api/keys/" + keyID + "/", "", 204},
		{"DELETE", "/api/keys/" + keyID + "/", "", 404},
		{"DELETE", "/api/tenants/" + tenant + "/", "", 204},
		{"GET", "/api/inboxes/" + inboxID + "/emails/?limit=2&subject=third", "", 200},
		{"GET", "/api/inboxes/" + inboxID + "/events/", "", 400}, // a Last-Event-ID below
		{"GET", "/api/emails/" + first + "/", "", 200},
		{"POST", "/api/emails/" + first + "/mark_as_read/", "{}", 200},
		{"POST", "/api/emails/" + first + "/mark_as_read/", "{", 400},
		{"GET", "/api/emails/" + first + "/raw/", "", 200},
		{"GET", "/api/attachments/" + first + "-1/download/", "", 200},
		{"GET", "/api/attachments/" + first + "-2/download/", "", 404},
		{"DELETE", "/api/emails/" + ids[0] + "/", "", 204},
		{"DELETE", "/api/inboxes/" + other + "/", "", 204},
		{"POST", "/api/webhook/email/", `{"to":"nobody@tempmail.test","raw":"U3ViamVjdDogeA0KDQp4DQo="}`, 404},
		{"PUT", "/api/domains/", "", 405},
		{"GET", "/api/nothing/", "", 404},

		// Outbound webhook subscriptions.
		{"POST", "/api/webhooks/", `{"url":"ftp://example.com/"}`, 400},
		{"GET", "/api/webhooks/", "", 200},
		{"GET", "/api/webhooks/?inbox_id=" + inboxID, "", 200},
		{"GET", "/api/webhooks/" + own + "/", "", 200},
		{"GET", "/api/webhooks/" + global + "/deliveries/", "", 200},
		{"POST", "/api/webhooks/" + own + "/rotate-secret/", "", 200},
		{"DELETE", "/api/webhooks/" + global + "/", "", 204},
		{"GET", "/api/webhooks/" + global + "/", "", 404},
		{"POST", "/inboxes/" + token + "/webhooks/", `{"url":"https://93.184.215.14/x","events":[]}`, 400},
		{"GET", "/inboxes/" + token + "/webhooks/", "", 200},
		{"POST", "/inboxes/" + token + "/faults/", `{"command":"AFTER_DATA","reply":"452 4.3.1 not now","times":1,"from":"nobody@example.com"}`, 201},
		{"POST", "/inboxes/" + token + "/faults/", `{"command":"MAIL","reply":"452 4.3.1 not now"}`, 400},
		{"GET", "/inboxes/" + token + "/faults/", "", 200},
		{"DELETE", "/inboxes/" + token + "/faults/00000000-0000-4000-8000-000000000000/", "", 404},
		{"GET", "/inboxes/" + token + "/attempts/", "", 200},
		{"GET", "/inboxes/" + token + "/webhooks/" + own + "/", "", 200},
		{"GET", "/inboxes/" + token + "/webhooks/" + own + "/deliveries/", "", 200},
		{"POST", "/inboxes/" + token + "/webhooks/" + own + "/rotate-secret/", "{}", 200},
		{"DELETE", "/inboxes/" + token + "/webhooks/" + own + "/", "", 204},
		{"GET", "/inboxes/" + token + "/webhooks/" + global + "/", "", 404},

		// Family B.
		{"POST", "/api/create-temp-email/", `{"email_name":"tour"}`, 409},
		{"GET", "/api/mailstore/mailbox/tour/?limit=1", "", 200},
		{"GET", "/api/mailstore/mailbox/nobody/", "", 404},
		{"GET", msgB, "", 200},
		{"POST", msgB, "{}", 200},
		{"POST", msgB, "x", 415},
		{"DELETE", "/api/mailstore/mailbox/tour/" + ids[1] + ".eml/delete/", "", 200},
		{"DELETE", "/api/mailstore/mailbox/tour/" + ids[1] + ".eml/delete/", "", 404},
		{"GET", "/api/create-temp-email/", "", 405},
		{"GET", "/api/mailstore/nothing/", "", 404},

		// Family C.
		{"POST", "/inboxes/", `{"name":"tour2","domain":"other.test"}`, 201},
		{"POST", "/inboxes/", `{"name":"tour"}`, 409},
		{"POST", "/inboxes/", `{"domain":"nowhere.test"}`, 400},
		{"GET", "/inboxes/" + token + "/", "", 200},
		{"GET", "/inboxes/" + token + "/messages/?offset=1", "", 200},
		{"GET", msgC, "", 200},
		{"GET", "/inboxes/" + token + "/messages/" + none + "/", "", 404},
		{"POST", msgC + "read/", "", 200},
		{"GET", msgC + "raw/", "", 200},
		{"GET", msgC + "raw/?download=1", "", 200},
		{"GET", "/inboxes/" + token + "/messages/" + none + "/raw/", "", 404},
		{"GET", msgC + "body.html", "", 200},
		{"GET", msgC + "body.html?remote=1", "", 200},
		{"GET", "/inboxes/" + token + "/messages/" + ids[0] + "/body.html", "", 404},
		{"GET", msgC + "attachments/1/", "", 200},
		{"GET", msgC + "attachments/2/", "", 404},
		{"GET", "/inboxes/" + token + "/latest/", "", 200},
		{"GET", "/inboxes/" + token + "/latest/?after=" + first, "", 404},
		{"GET", "/inboxes/" + token + "/otp/", "", 200},
		{"GET", "/inboxes/" + token + "/otp/?pattern=(", "", 400},
		{"GET", "/inboxes/" + token + "/link/", "", 404}, // the tour's mail has no links; TestLinkC finds some
		{"GET", "/inboxes/" + token + "/link/?pattern=(", "", 400},
		{"GET", "/address/latest/?address=" + strings.ToUpper(addr), "", 200},
		{"GET", "/address/latest/", "", 400},
		{"PATCH", "/inboxes/" + token + "/", "", 405},
		{"GET", "/inboxes/" + token + "/nothing/", "", 404},
		{"DELETE", "/inboxes/" + token + "/messages/" + first + "/", "", 204},
		{"DELETE", "/inboxes/" + token + "/messages/" + first + "/", "", 404},
		{"DELETE", "/inboxes/" + token + "/", "", 204},
		{"GET", "/inboxes/" + token + "/", "", 404},

		// The page, probes, metrics and the document.
		{"GET", "/", "", 200},
		{"GET", "/ui/config.json", "", 200},
		{"GET", "/ui/app.js", "", 200},
		{"GET", "/ui/style.css", "", 200},
		{"GET", "/ui/nothing.js", "", 404},
		{"GET", "/livez", "", 200},
		{"GET", "/readyz", "", 200},
		{"GET", "/healthz/", "", 200},
		{"GET", "/metrics", "", 200},
		{"GET", "/openapi.json", "", 200},
		{"POST", "/livez", "", 405},
		{"GET", "/mcp", "", 405},
		{"GET", "/nothing", "", 404},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			headers := []string{"Content-Type", apitest.JSONType}
			if c.body == "x" {
				headers = []string{"Content-Type", "text/plain"}
			}
			if strings.HasSuffix(c.path, "/events/") {
				headers = append(headers, "Last-Event-ID", "last week")
			}
			if strings.HasPrefix(c.path, "/api/webhook") || strings.HasPrefix(c.path, "/api/inboxes/?") ||
				strings.HasPrefix(c.path, "/api/tenants/") || strings.HasPrefix(c.path, "/api/keys/") ||
				strings.HasPrefix(c.path, "/api/faults/") || strings.HasPrefix(c.path, "/api/attempts/") ||
				c.method == "POST" && c.path == "/api/domains/" {
				headers = auth
			}
			if strings.HasPrefix(c.path, "/api/usage") || strings.HasPrefix(c.path, "/api/inboxes/?limit") {
				headers = []string{"Authorization", "Bearer " + tourKey}
			}
			if r := h.As(t).Do(c.method, c.path, c.body, headers...); r.Status != c.status {
				t.Errorf("%d, want %d; %.200s", r.Status, c.status, r.Body)
			}
		})
	}
	// MCP (api/mcphttp/mcp_test.go goes further).
	h.Expect(h.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Content-Type", apitest.JSONType,
		"Accept", "application/json, text/event-stream"), http.StatusOK, "")
	h.Expect(h.Do("POST", "/mcp", `[]`, "Content-Type", apitest.JSONType, "Accept", "application/json, text/event-stream"), http.StatusBadRequest, "")
	h.Service.API.SetReady(false)
	h.Expect(h.Do("GET", "/readyz", ""), http.StatusServiceUnavailable, `{"status":"starting","failing":["starting up"]}`)
	h.Expect(h.Do("GET", "/healthz", ""), http.StatusServiceUnavailable, "")
	h.Service.API.SetReady(true)

	// The compatible families' own tests call each of their operations
	// (TestEveryOperationAnswersAsDocumented in each).
	for _, op := range h.Unanswered(func(path string) bool { return !strings.HasPrefix(path, "/compat/") }) {
		t.Errorf("operation %s was not called: add a call to this test", op)
	}
}
