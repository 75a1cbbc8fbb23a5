package apitest

// The OpenAPI document (openapi.json) as the tests hold the service to it:
// every answer a test receives over HTTP goes through Contract.check, so a
// change to a handler that the document does not follow, or the other way
// round, fails the test that sees it.
//
// The validator is github.com/pb33f/libopenapi-validator, chosen for
// OpenAPI 3.1: it was built for 3.1 (schemas are JSON Schema 2020-12,
// checked by a full 2020-12 implementation), and it checks a document
// against the specification's own 3.1 schema. kin-openapi, the other
// candidate, gained 3.1 only in 2026 on top of its 3.0 model and checks
// documents by rules of its own. libopenapi-validator's strict mode also
// reports a property a body has and the document does not declare (plain
// JSON Schema allows it): that keeps new fields from going undocumented.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/responses"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"

	"tempmail/api"
	"tempmail/api/family"
	"tempmail/api/inboxapi"
	"tempmail/api/mailboxapi"
	"tempmail/api/tokenapi"
)

// undocumentedRoutes are the routes that may be served without an
// operation in the document, while someone builds them: none now. Their
// answers are not checked until they are documented; once one is, take it
// off this list (TestOpenAPICoversEveryRoute says so). Parameter names do
// not matter here.
var undocumentedRoutes = []string{}

// freeFormBodies are operations whose JSON bodies the document does not
// describe property by property, so strict checking is off for them: the
// document itself.
var freeFormBodies = []string{"getOpenAPI", "mcp"} // the document, and JSON-RPC (MCP)

// strictIgnored are the places in bodies where any property name may come:
// header maps, declared with additionalProperties, which strict mode would
// otherwise report name by name.
var strictIgnored = []string{"$.body.headers.*", "$.body.emails[*].headers.*"}

// document is the OpenAPI document as the checks read it. It is made once
// for the whole run and shared by every harness (each service serves the
// same document): parsing it and compiling the schemas answers are checked
// against is most of what checking costs, and the compiled schemas are
// kept in its validators' caches.
type document struct {
	model *v3.Document
	raw   map[string]any // the document as JSON, for its x-events
	// docPaths maps a route pattern, normalized by routeKey, to the
	// document's path for it.
	docPaths map[string]string
	// opts are the strict checks' options, with the caches of compiled
	// schemas that every strict check shares.
	opts   []config.Option
	strict responses.ResponseBodyValidator
	lax    responses.ResponseBodyValidator
	// validating serializes the validators and their caches, which are
	// not documented as safe for concurrent use.
	validating sync.Mutex
}

// theDocument is the document, parsed when a test first needs it.
var theDocument = sync.OnceValues(func() (*document, error) {
	doc, err := libopenapi.NewDocumentWithConfiguration([]byte(api.OpenAPIDocument()),
		&datamodel.DocumentConfiguration{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, err
	}
	d := &document{model: &model.Model, docPaths: map[string]string{},
		opts: []config.Option{config.WithFormatAssertions(), config.WithStrictMode(), config.WithStrictIgnorePaths(strictIgnored...),
			// Headers every answer of a kind may carry, which the
			// document describes in prose rather than per response.
			config.WithStrictIgnoredHeadersExtra("X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options",
				"X-Accel-Buffering", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers"),
			// Kept across checks: without them, a check of an event or a
			// webhook delivery (responses.ValidateResponseSchema) would
			// compile its schema anew each time.
			config.WithSchemaCache(cache.NewDefaultCache()), config.WithSchemaResourceCache(cache.NewDefaultSchemaResourceCache())}}
	// Only the response validators: the whole validator compiles every
	// schema of the document up front, which costs more than compiling
	// the few the tests' answers need.
	d.strict = responses.NewResponseBodyValidator(d.model, d.opts...)
	d.lax = responses.NewResponseBodyValidator(d.model, config.WithFormatAssertions())
	if err := json.Unmarshal([]byte(api.OpenAPIDocument()), &d.raw); err != nil {
		return nil, err
	}
	for p := range d.model.Paths.PathItems.KeysFromOldest() {
		d.docPaths[routeKey(p)] = p
	}
	return d, nil
})

// Contract checks HTTP answers against the document, for one server
// (router) and one test. It is safe for concurrent use.
type Contract struct {
	*document
	router chi.Routes

	mu       sync.Mutex      // guards seen and streamed
	seen     map[string]bool // operationIds answered so far
	streamed []string        // problems found in event streams, reported at cleanup
}

func newContract(t testing.TB, router chi.Routes) *Contract {
	t.Helper()
	doc, err := theDocument()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	c := &Contract{document: doc, router: router, seen: map[string]bool{}}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, p := range c.streamed {
			t.Error(p)
		}
		c.streamed = nil
	})
	return c
}

var routeParams = regexp.MustCompile(`\{[^}]*\}|\*`)

// routeKey is how a chi route pattern and a document path are compared:
// without a trailing slash (both forms are served) and with every
// parameter, and chi's catch-all, as {}.
func routeKey(p string) string {
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return routeParams.ReplaceAllString(p, "{}")
}

func undocumented(pattern string) bool {
	return slices.ContainsFunc(undocumentedRoutes, func(r string) bool { return routeKey(r) == routeKey(pattern) })
}

// transport wraps next so that every answer is checked as it arrives: a
// whole body at once, an event stream event by event as it is read.
func (c *Contract) transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil || isPreflight(req) {
			return resp, err
		}
		if isEventStream(resp) && req.Method != http.MethodHead {
			problems := c.check(req, resp, nil)
			reportContract(t, req, resp, problems)
			if len(problems) == 0 {
				resp.Body = c.streamChecker(req, resp.Body)
			}
			return resp, nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return resp, nil // the test sees the short body and says so
		}
		reportContract(t, req, resp, c.check(req, resp, body))
		return resp, nil
	})
}

// isPreflight reports a browser's CORS preflight: the middleware answers
// it for every path the router serves (api/cors.go), as part of HTTP rather
// than as an operation of the API, so the document lists none.
func isPreflight(req *http.Request) bool {
	return req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != ""
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func isEventStream(resp *http.Response) bool {
	return resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}

func reportContract(t testing.TB, req *http.Request, resp *http.Response, problems []string) {
	if len(problems) == 0 {
		return
	}
	t.Errorf("%s %.120s answered %d (%s), which api/openapi.json does not allow:\n\t%s",
		req.Method, req.URL.RequestURI(), resp.StatusCode, resp.Header.Get("Content-Type"), strings.Join(problems, "\n\t"))
}

// route finds the route pattern the server matched for req, as chi does
// after StripSlashes; "" when none did.
func (c *Contract) route(method string, req *http.Request) string {
	p := req.URL.RawPath
	if p == "" {
		p = req.URL.Path
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return c.router.Find(chi.NewRouteContext(), method, p)
}

// check returns what is wrong with an answer (nil when nothing). body is
// the whole body, or nil for an event stream, whose events are checked as
// they come.
func (c *Contract) check(req *http.Request, resp *http.Response, body []byte) []string {
	method := req.Method
	if method == http.MethodHead {
		method = http.MethodGet // HEAD is served wherever GET is, as GET without its body
	}
	pattern := c.route(method, req)
	if pattern == "" {
		return c.checkUnrouted(req, resp, body)
	}
	docPath, ok := c.docPaths[routeKey(pattern)]
	if !ok {
		if undocumented(pattern) {
			return nil
		}
		return []string{"the route " + pattern + " has no path in the document"}
	}
	item := c.model.Paths.PathItems.GetOrZero(docPath)
	op := item.GetOperations().GetOrZero(strings.ToLower(method))
	if op == nil {
		return []string{fmt.Sprintf("the document has no %s operation for %s", method, docPath)}
	}
	if req.Method == http.MethodHead {
		return c.checkHead(req, resp, body, op, docPath)
	}
	v := c.strict
	if slices.Contains(freeFormBodies, op.OperationId) {
		v = c.lax
	}
	copied := *resp
	copied.Body = io.NopCloser(bytes.NewReader(body))
	if body == nil {
		copied.Body = http.NoBody
	}
	c.mu.Lock()
	c.seen[op.OperationId] = true
	c.mu.Unlock()
	c.validating.Lock()
	_, errs := v.ValidateResponseBodyWithPathItem(req, &copied, item, docPath)
	c.validating.Unlock()
	problems := DescribeProblems(errs)
	if documented := op.Responses.Codes.GetOrZero(strconv.Itoa(resp.StatusCode)); documented != nil &&
		orderedmap.Len(documented.Content) == 0 && len(body) > 0 {
		problems = append(problems, fmt.Sprintf("the document says a %d has no body; it has %d bytes", resp.StatusCode, len(body)))
	}
	return problems
}

// checkUnrouted checks the answer to a request no route took. A path
// served with other methods is answered 405 with an Allow that lists
// exactly those (HEAD with GET, OPTIONS with any), or, to OPTIONS, 204 with
// that Allow and no body; any other path 404. Errors are in the shape of
// the family whose prefix the path has (the document's info says so; its
// operations list only what they answer themselves).
func (c *Contract) checkUnrouted(req *http.Request, resp *http.Response, body []byte) []string {
	var allow []string
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		if c.route(m, req) != "" {
			allow = append(allow, m)
			if m == "GET" {
				allow = append(allow, "HEAD")
			}
		}
	}
	if len(allow) > 0 {
		allow = append(allow, "OPTIONS")
	}
	status := http.StatusNotFound
	switch {
	case len(allow) > 0 && req.Method == http.MethodOptions &&
		(req.Header.Get("Access-Control-Request-Method") == "" || slices.Contains(allow, req.Header.Get("Access-Control-Request-Method"))):
		status = http.StatusNoContent
	case len(allow) > 0:
		status = http.StatusMethodNotAllowed
	}
	if resp.StatusCode != status {
		return []string{fmt.Sprintf("no route takes %s %s, so the answer must be %d", req.Method, req.URL.Path, status)}
	}
	var problems []string
	if got, want := resp.Header.Get("Allow"), strings.Join(allow, ", "); status != http.StatusNotFound && got != want {
		problems = append(problems, fmt.Sprintf("Allow %q, want %q", got, want))
	}
	if status == http.StatusNoContent {
		if len(body) > 0 {
			problems = append(problems, fmt.Sprintf("a 204 with %d bytes of body", len(body)))
		}
		return problems
	}
	if req.Method == http.MethodHead {
		if len(body) > 0 {
			problems = append(problems, fmt.Sprintf("an answer to HEAD with %d bytes of body", len(body)))
		}
		return problems
	}
	return append(problems, c.checkAs(req, resp, body, errorShape(req.URL.Path))...)
}

// checkHead checks the answer to a HEAD: a status the GET operation op
// answers, with its headers and no body.
func (c *Contract) checkHead(req *http.Request, resp *http.Response, body []byte, op *v3.Operation, docPath string) []string {
	var problems []string
	if len(body) > 0 {
		problems = append(problems, fmt.Sprintf("an answer to HEAD with %d bytes of body", len(body)))
	}
	code := strconv.Itoa(resp.StatusCode)
	documented := op.Responses.Codes.GetOrZero(code)
	if documented == nil {
		documented = op.Responses.Default
	}
	if documented == nil {
		return append(problems, fmt.Sprintf("GET %s does not answer %d, so its HEAD may not", docPath, resp.StatusCode))
	}
	if ct := resp.Header.Get("Content-Type"); orderedmap.Len(documented.Content) > 0 {
		if _, ok := helpers.FindMediaType(documented.Content, ct); !ok {
			problems = append(problems, fmt.Sprintf("content type %q is not one GET %s answers %d with", ct, docPath, resp.StatusCode))
		}
	}
	copied := *resp
	copied.Body = http.NoBody
	c.validating.Lock()
	defer c.validating.Unlock()
	// The headers GET's answer must have; those it may have beside them
	// are not checked for GET either.
	_, errs := responses.ValidateResponseHeaders(req, &copied, documented.Headers, "paths"+docPath+"/get", code,
		config.WithFormatAssertions())
	return append(problems, DescribeProblems(errs)...)
}

// checkAs checks an answer's body against components.schemas[name].
func (c *Contract) checkAs(req *http.Request, resp *http.Response, body []byte, name string) []string {
	proxy := c.model.Components.Schemas.GetOrZero(name)
	if proxy == nil {
		return []string{"components.schemas has no " + name}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		return []string{fmt.Sprintf("%s: content type %q, want application/json; charset=utf-8", name, ct)}
	}
	copied := *resp
	copied.Body = io.NopCloser(bytes.NewReader(body))
	c.validating.Lock()
	defer c.validating.Unlock()
	_, errs := responses.ValidateResponseSchema(&responses.ValidateResponseSchemaInput{
		Request: req, Response: &copied, Schema: proxy.Schema(), Version: 3.1, Options: c.opts})
	return DescribeProblems(errs)
}

// CheckDelivery checks what an outbound webhook delivery POSTs against the
// document's webhooks.delivery: the headers it declares required, and the
// body against its schema (Delivery, one shape per type).
func (c *Contract) CheckDelivery(r *http.Request, body []byte) []string {
	item := c.model.Webhooks.GetOrZero("delivery")
	if item == nil || item.Post == nil || item.Post.RequestBody == nil {
		return []string{"the document has no webhooks.delivery.post with a request body"}
	}
	var problems []string
	for _, p := range item.Post.Parameters {
		if p.In == "header" && p.Required != nil && *p.Required && r.Header.Get(p.Name) == "" {
			problems = append(problems, "header "+p.Name+" is missing")
		}
	}
	media, ok := helpers.FindMediaType(item.Post.RequestBody.Content, r.Header.Get("Content-Type"))
	if !ok {
		return append(problems, fmt.Sprintf("content type %q is not the delivery's", r.Header.Get("Content-Type")))
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(body))}
	c.validating.Lock()
	defer c.validating.Unlock()
	_, errs := responses.ValidateResponseSchema(&responses.ValidateResponseSchemaInput{
		Request: r, Response: resp, Schema: media.Schema.Schema(), Version: 3.1, Options: c.opts})
	return append(problems, DescribeProblems(errs)...)
}

// DescribeProblems turns the validator's errors into lines a reader can act on.
func DescribeProblems(errs []*liberrors.ValidationError) []string {
	var out []string
	for _, e := range errs {
		line := e.Message
		if e.Reason != "" && e.Reason != e.Message {
			line += ": " + e.Reason
		}
		for _, f := range e.SchemaValidationErrors {
			where := f.FieldPath
			if where == "" {
				where = f.KeywordLocation
			}
			line += fmt.Sprintf("\n\t\t%s (%s)", f.Reason, where)
		}
		out = append(out, line)
	}
	return out
}

// errorShape is the name of the document's schema of the errors a path
// answers with: each family's door says which paths are its (the compatible
// families' errors are checked by their operations alone, as every path
// under /compat/ has one).
func errorShape(path string) string {
	doors := []family.Door{{Paths: []string{"/"}}, inboxapi.Door(), mailboxapi.Door(), tokenapi.Door(),
		{Name: "compat", Paths: []string{family.CompatPrefix}}}
	switch family.DoorFor(doors, path).Name {
	case inboxapi.Door().Name:
		return "ErrorDetail"
	case mailboxapi.Door().Name:
		return "ErrorB"
	case "compat":
		return ""
	}
	return "Error"
}

// CheckRoutes checks that every route of router is an operation of the
// document, and every operation a route, but for the routes being built
// elsewhere (undocumentedRoutes).
func CheckRoutes(t *testing.T, router chi.Routes) {
	t.Helper()
	c := newContract(t, router)

	served := map[string]bool{}
	err := chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		served[method+" "+routeKey(route)] = true
		if _, ok := c.docPaths[routeKey(route)]; !ok && !undocumented(route) {
			t.Errorf("%s %s is served and not in api/openapi.json", method, route)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().KeysFromOldest() {
			if !served[strings.ToUpper(method)+" "+routeKey(path)] {
				t.Errorf("api/openapi.json has %s %s, which the server does not serve", strings.ToUpper(method), path)
			}
		}
	}
	for _, r := range undocumentedRoutes {
		if _, ok := c.docPaths[routeKey(r)]; ok {
			t.Errorf("%s is documented now: take it off undocumentedRoutes", r)
		}
	}
}

// Unanswered is the operations of the document, of the paths under
// accepts, that no answer the harness's client received was an answer of:
// for a test that calls every operation of a family once.
func (h *Harness) Unanswered(under func(path string) bool) []string {
	c := h.Contract
	c.mu.Lock()
	defer c.mu.Unlock()
	var missing []string
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		if !under(path) {
			continue
		}
		for _, op := range item.GetOperations().FromOldest() {
			if !c.seen[op.OperationId] {
				missing = append(missing, op.OperationId)
			}
		}
	}
	return missing
}
