package apitest

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

// Main is a test package's TestMain: it runs more tests at once than the
// machine has cores, unless -parallel says how many (the tests mostly
// wait, for a TTL of a second to run out, a retry a second away, a held
// request, and -parallel's default, GOMAXPROCS, would have them wait in
// turn), and stops the shared service (Shared) when they are done.
func Main(m *testing.M) {
	setParallel()
	os.Exit(m.Run())
}

// setParallel sets -parallel to four times the cores, unless it is given.
func setParallel() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
}

// Harness is one running service, as a test sees it.
type Harness struct {
	T       *testing.T
	Service *service.Service
	URL     string // of the HTTP listener: http://127.0.0.1:port
	// Client is how tests talk to the service: every answer it receives
	// is checked against the OpenAPI document (contract.go).
	Client   *http.Client
	Contract *Contract
	// shared is set on a harness of a Shared service, whose metrics
	// count what every test of the package does.
	shared bool
}

// TestToken is family A's API token in tests.
const TestToken = "test-api-token-0123456789"

// passwordCost is bcrypt's least: mail.tm's passwords, hashed in
// milliseconds under -race rather than seconds at its default.
const passwordCost = 4

// configure sets what every harness's service has: two domains
// (tempmail.test, the default, and other.test), TestToken, and the host
// name mx.test.
func configure(cfg *config.Config) {
	cfg.Domains = []string{"tempmail.test", "other.test"}
	cfg.APIToken = TestToken
	cfg.Hostname = "mx.test"
}

// New starts a service of its own for t, with two domains
// (tempmail.test, the default, and other.test) and TestToken, changed by
// tweak; it stops when t ends.
func New(t *testing.T, tweak ...func(*config.Config)) *Harness {
	t.Helper()
	return NewWith(t, service.Options{}, tweak...)
}

// NewWith is New with options no flag sets (a webhook
// resolver, a shorter attempt).
func NewWith(t *testing.T, opts service.Options, tweak ...func(*config.Config)) *Harness {
	t.Helper()
	cfg := servicetest.Config(t)
	configure(&cfg)
	for _, f := range tweak {
		f(&cfg)
	}
	if opts.PasswordCost == 0 {
		opts.PasswordCost = passwordCost
	}
	svc := servicetest.StartWith(t, cfg, opts)
	h := &Harness{T: t, Service: svc, URL: servicetest.URL(svc), Contract: newContract(t, svc.API.Router())}
	// Bounded, so that a hang fails its test with a message instead of
	// stalling the run until the global timeout.
	h.Client = h.ClientVia(http.DefaultTransport, 90*time.Second)
	return h
}

// As is the harness for t, a subtest of the harness's test: what goes
// wrong fails t, not its parent, and the helpers may stop t (FailNow may
// be called only from the goroutine that runs the test it stops).
func (h *Harness) As(t *testing.T) *Harness {
	sub := *h
	sub.T = t
	sub.Client = sub.ClientVia(http.DefaultTransport, 90*time.Second)
	return &sub
}

// Response is an HTTP answer as a test looks at it.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r Response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", r.Body, err)
	}
	return v
}

// Do sends a request; headers alternate name, value.
func (h *Harness) Do(method, path, body string, headers ...string) Response {
	h.T.Helper()
	return h.DoWith(h.Client, method, path, body, headers...)
}

// DoWith sends a request with client.
func (h *Harness) DoWith(client *http.Client, method, path, body string, headers ...string) Response {
	h.T.Helper()
	req, err := http.NewRequest(method, h.URL+path, strings.NewReader(body))
	if err != nil {
		h.T.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return Response{resp.StatusCode, resp.Header, b}
}

// Start sends a request from a goroutine of its own and returns where its
// answer will come: for a request that is held while the test goes on.
// It does not stop the test (only the test's own goroutine may): a
// request that could not be sent comes back with Status 0 and the error
// as its Body.
func (h *Harness) Start(method, path, body string, headers ...string) <-chan Response {
	answer := make(chan Response, 1)
	req, err := http.NewRequest(method, h.URL+path, strings.NewReader(body))
	if err != nil {
		h.T.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	go func() {
		resp, err := h.Client.Do(req)
		if err != nil {
			answer <- Response{Body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answer <- Response{resp.StatusCode, resp.Header, b}
	}()
	return answer
}

// SendMail sends raw to to over SMTP (servicetest.Send), as any mail
// server would, from sender@example.com.
func (h *Harness) SendMail(to, raw string) {
	h.T.Helper()
	h.SendMailFrom("sender@example.com", to, raw)
}

// SendMailFrom is sendMail from a sender of the test's choosing (the
// envelope's, which the sender checks look at).
func (h *Harness) SendMailFrom(from, to, raw string) {
	h.T.Helper()
	servicetest.Send(h.T, h.Service.SMTPAddr(), from, to, raw)
}

// SMTPClient connects to the service's SMTP listener, for a test that
// holds the conversation itself.
func (h *Harness) SMTPClient() *smtp.Client {
	h.T.Helper()
	c, err := smtp.Dial(h.Service.SMTPAddr())
	if err != nil {
		h.T.Fatal(err)
	}
	return c
}

// WaitLatest waits (long-polling) until the inbox with token has a message
// newer than after, and returns it.
func (h *Harness) WaitLatest(token, after string) map[string]any {
	h.T.Helper()
	r := h.Do("GET", "/inboxes/"+token+"/latest/?wait=10&after="+after, "")
	if r.Status != 200 {
		h.T.Fatalf("latest: %d %s", r.Status, r.Body)
	}
	return r.JSON(h.T)
}

// TokenInbox creates a family C inbox and returns its token and address.
func (h *Harness) TokenInbox() (token, address string) {
	h.T.Helper()
	r := h.Do("POST", "/inboxes/", "")
	if r.Status != http.StatusCreated {
		h.T.Fatalf("create inbox: %d %s", r.Status, r.Body)
	}
	v := r.JSON(h.T)
	return v["token"].(string), v["address"].(string)
}

// Expect checks status and, when want is not empty, that the body equals
// want as JSON.
func (h *Harness) Expect(r Response, status int, want string) {
	h.T.Helper()
	if r.Status != status {
		h.T.Errorf("status %d, want %d; body %s", r.Status, status, r.Body)
		return
	}
	if want == "" {
		return
	}
	var got, exp any
	if err := json.Unmarshal(r.Body, &got); err != nil {
		h.T.Errorf("body %q is not JSON", r.Body)
		return
	}
	_ = json.Unmarshal([]byte(want), &exp)
	g, _ := json.Marshal(got)
	e, _ := json.Marshal(exp)
	if string(g) != string(e) {
		h.T.Errorf("body %s, want %s", g, e)
	}
}

// ClientVia returns a client whose answers are checked against the
// OpenAPI document; timeout 0 means none (for event streams).
func (h *Harness) ClientVia(rt http.RoundTripper, timeout time.Duration) *http.Client {
	return &http.Client{Transport: h.Contract.transport(h.T, rt), Timeout: timeout}
}

// Metric reads the value of an unlabelled sample from /metrics, as an
// operator's scraper does: what the service counts is observed where it
// is published, not in its variables.
func (h *Harness) Metric(name string) float64 {
	h.T.Helper()
	if h.shared {
		h.T.Fatalf("metric %s: a shared service's metrics count what every test of the package does; start a service of its own (apitest.New)", name)
	}
	r := h.Do("GET", "/metrics", "")
	if r.Status != http.StatusOK {
		h.T.Fatalf("GET /metrics: %d %s", r.Status, r.Body)
	}
	for line := range strings.Lines(string(r.Body)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				h.T.Fatalf("/metrics: %q: %v", line, err)
			}
			return f
		}
	}
	h.T.Fatalf("/metrics has no sample %s", name)
	return 0
}

// Held is how many requests are held open now (long-polls with wait,
// event streams, the MCP tools' waits): tempmail_http_held_requests, the
// places --max-waiters bounds.
func (h *Harness) Held() int {
	h.T.Helper()
	return int(h.Metric("tempmail_http_held_requests"))
}

// WaitHeld returns once exactly n requests are held open (or fails the
// test): the signal that a request is waiting, rather than answered or
// not yet arrived.
func (h *Harness) WaitHeld(n int) {
	h.T.Helper()
	eventually.Nil(h.T, fmt.Sprintf("%d requests held open", n), func() error {
		if got := h.Held(); got != n {
			return fmt.Errorf("%d held", got)
		}
		return nil
	})
}
