package api_test

// The tests of package api run the whole service, through the one
// assembly `tempmail serve` runs (servicetest): embedded NATS in the
// test's temporary directory, the views, webhooks, ingest and the API, and
// talk to it as its users do, over its HTTP and SMTP listeners. They are
// in package api_test because service imports api; what little of the
// server's inside they check comes from export_test.go.

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/smtp"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// TestMain runs more tests at once than the machine has cores, unless
// -parallel says how many: the tests mostly wait, each on a service of its
// own (for a TTL of a second to run out, a retry a second away, a held
// request), and -parallel's default, GOMAXPROCS, would have them wait in
// turn.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	os.Exit(m.Run())
}

// harness is one running service, as a test sees it.
type harness struct {
	t   *testing.T
	svc *service.Service
	url string // of the HTTP listener: http://127.0.0.1:port
	// client is how tests talk to the service: every answer it receives
	// is checked against the OpenAPI document (contract_test.go).
	client   *http.Client
	contract *contract
}

// testToken is family A's API token in tests.
const testToken = "test-api-token-0123456789"

// newHarness starts a service of its own for t, with two domains
// (tempmail.test, the default, and other.test) and testToken, changed by
// tweak; it stops when t ends.
func newHarness(t *testing.T, tweak ...func(*config.Config)) *harness {
	t.Helper()
	return newHarnessWith(t, service.Options{}, tweak...)
}

// newHarnessWith is newHarness with options no flag sets (a webhook
// resolver, a shorter attempt).
func newHarnessWith(t *testing.T, opts service.Options, tweak ...func(*config.Config)) *harness {
	t.Helper()
	cfg := servicetest.Config(t)
	cfg.Domains = []string{"tempmail.test", "other.test"}
	cfg.APIToken = testToken
	cfg.Hostname = "mx.test"
	for _, f := range tweak {
		f(&cfg)
	}
	if opts.PasswordCost == 0 {
		opts.PasswordCost = 4 // bcrypt's least: mail.tm's passwords, hashed in seconds under -race at its default
	}
	svc := servicetest.StartWith(t, cfg, opts)
	h := &harness{t: t, svc: svc, url: servicetest.URL(svc), contract: newContract(t, svc.API.Router())}
	// Bounded, so that a hang fails its test with a message instead of
	// stalling the run until the global timeout.
	h.client = h.clientVia(http.DefaultTransport, 90*time.Second)
	return h
}

// as is the harness for t, a subtest of the harness's test: what goes
// wrong fails t, not its parent, and the helpers may stop t (FailNow may
// be called only from the goroutine that runs the test it stops).
func (h *harness) as(t *testing.T) *harness {
	sub := *h
	sub.t = t
	sub.client = sub.clientVia(http.DefaultTransport, 90*time.Second)
	return &sub
}

// response is an HTTP answer as a test looks at it.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", r.Body, err)
	}
	return v
}

// do sends a request; headers alternate name, value.
func (h *harness) do(method, path, body string, headers ...string) response {
	h.t.Helper()
	return h.doWith(h.client, method, path, body, headers...)
}

// doWith sends a request with client.
func (h *harness) doWith(client *http.Client, method, path, body string, headers ...string) response {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}
}

// start sends a request from a goroutine of its own and returns where its
// answer will come: for a request that is held while the test goes on.
// It does not stop the test (only the test's own goroutine may): a
// request that could not be sent comes back with Status 0 and the error
// as its Body.
func (h *harness) start(method, path, body string, headers ...string) <-chan response {
	answer := make(chan response, 1)
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	go func() {
		resp, err := h.client.Do(req)
		if err != nil {
			answer <- response{Body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answer <- response{resp.StatusCode, resp.Header, b}
	}()
	return answer
}

// sendMail sends raw to to over SMTP (servicetest.Send), as any mail
// server would, from sender@example.com.
func (h *harness) sendMail(to, raw string) {
	h.t.Helper()
	h.sendMailFrom("sender@example.com", to, raw)
}

// sendMailFrom is sendMail from a sender of the test's choosing (the
// envelope's, which the sender checks look at).
func (h *harness) sendMailFrom(from, to, raw string) {
	h.t.Helper()
	servicetest.Send(h.t, h.svc.SMTPAddr(), from, to, raw)
}

// smtpClient connects to the service's SMTP listener, for a test that
// holds the conversation itself.
func (h *harness) smtpClient() *smtp.Client {
	h.t.Helper()
	c, err := smtp.Dial(h.svc.SMTPAddr())
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// waitLatest waits (long-polling) until the inbox with token has a message
// newer than after, and returns it.
func (h *harness) waitLatest(token, after string) map[string]any {
	h.t.Helper()
	r := h.do("GET", "/inboxes/"+token+"/latest/?wait=10&after="+after, "")
	if r.Status != 200 {
		h.t.Fatalf("latest: %d %s", r.Status, r.Body)
	}
	return r.JSON(h.t)
}

// tokenInbox creates a family C inbox and returns its token and address.
func (h *harness) tokenInbox() (token, address string) {
	h.t.Helper()
	r := h.do("POST", "/inboxes/", "")
	if r.Status != http.StatusCreated {
		h.t.Fatalf("create inbox: %d %s", r.Status, r.Body)
	}
	v := r.JSON(h.t)
	return v["token"].(string), v["address"].(string)
}

// expect checks status and, when want is not empty, that the body equals
// want as JSON.
func (h *harness) expect(r response, status int, want string) {
	h.t.Helper()
	if r.Status != status {
		h.t.Errorf("status %d, want %d; body %s", r.Status, status, r.Body)
		return
	}
	if want == "" {
		return
	}
	var got, exp any
	if err := json.Unmarshal(r.Body, &got); err != nil {
		h.t.Errorf("body %q is not JSON", r.Body)
		return
	}
	_ = json.Unmarshal([]byte(want), &exp)
	g, _ := json.Marshal(got)
	e, _ := json.Marshal(exp)
	if string(g) != string(e) {
		h.t.Errorf("body %s, want %s", g, e)
	}
}

// clientVia returns a client whose answers are checked against the
// OpenAPI document; timeout 0 means none (for event streams).
func (h *harness) clientVia(rt http.RoundTripper, timeout time.Duration) *http.Client {
	return &http.Client{Transport: h.contract.transport(h.t, rt), Timeout: timeout}
}

// metric reads the value of an unlabelled sample from /metrics, as an
// operator's scraper does: what the service counts is observed where it
// is published, not in its variables.
func (h *harness) metric(name string) float64 {
	h.t.Helper()
	r := h.do("GET", "/metrics", "")
	if r.Status != http.StatusOK {
		h.t.Fatalf("GET /metrics: %d %s", r.Status, r.Body)
	}
	for line := range strings.Lines(string(r.Body)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				h.t.Fatalf("/metrics: %q: %v", line, err)
			}
			return f
		}
	}
	h.t.Fatalf("/metrics has no sample %s", name)
	return 0
}

// held is how many requests are held open now (long-polls with wait,
// event streams, the MCP tools' waits): tempmail_http_held_requests, the
// places --max-waiters bounds.
func (h *harness) held() int {
	h.t.Helper()
	return int(h.metric("tempmail_http_held_requests"))
}

// waitHeld returns once exactly n requests are held open (or fails the
// test): the signal that a request is waiting, rather than answered or
// not yet arrived.
func (h *harness) waitHeld(n int) {
	h.t.Helper()
	eventually.Nil(h.t, fmt.Sprintf("%d requests held open", n), func() error {
		if got := h.held(); got != n {
			return fmt.Errorf("%d held", got)
		}
		return nil
	})
}
