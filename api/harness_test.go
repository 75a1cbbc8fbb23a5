package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tempmail"
	"tempmail/command"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/config"
	"tempmail/events"
	"tempmail/events/natstest"
	"tempmail/ingest"
	"tempmail/projections"
	"tempmail/webhooks"
)

// harness is the API over real HTTP, on a real embedded NATS with running
// projections, and the SMTP server beside it for mail.
type harness struct {
	t     *testing.T
	js    jetstream.JetStream
	node  *events.Node
	cfg   config.Config
	views *projections.Views
	hooks *webhooks.Webhooks
	smtp  *ingest.SMTPServer
	api   *Server
	http  *httptest.Server
	// client is how tests talk to the server: every answer it receives is
	// checked against the OpenAPI document (contract_test.go).
	client   *http.Client
	contract *contract
}

const testToken = "test-api-token-0123456789"

func newHarness(t *testing.T, tweak ...func(*config.Config)) *harness {
	t.Helper()
	return newHarnessWith(t, webhooks.Options{}, tweak...)
}

// newHarnessWith is newHarness with outbound webhooks shaped by hooks
// beyond what the configuration says.
func newHarnessWith(t *testing.T, hooks webhooks.Options, tweak ...func(*config.Config)) *harness {
	t.Helper()
	cfg := config.Default()
	cfg.Domains = []string{"tempmail.test", "other.test"}
	cfg.APIToken = testToken
	cfg.SMTPAddr = "127.0.0.1:0"
	for _, f := range tweak {
		f(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node := natstest.StartNode(t, t.TempDir())
	store := natstest.OpenStore(t, node)
	hooks.Exclusive, hooks.AllowPrivate, hooks.RetrySchedule = true, cfg.WebhookAllowPrivate, cfg.WebhookRetrySchedule
	wh, err := webhooks.Open(ctx, node.JS, hooks)
	if err != nil {
		t.Fatal(err)
	}
	views, err := projections.Open(ctx, node.JS, store, projections.Options{Exclusive: true, Outbox: wh,
		Rules: projections.Rules{MaxMessages: cfg.MaxMessagesPerInbox}})
	if err != nil {
		t.Fatal(err)
	}
	if err := views.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(views.Stop)
	wh.Start(views.Reader)
	t.Cleanup(wh.Stop) // before the views stop: it reads them
	log := slog.New(slog.DiscardHandler)
	d := &ingest.Deliverer{Store: store, Views: views.Reader, Log: log, MaxMessageBytes: cfg.MaxMessageBytes, Hostname: "mx.test",
		Retention: cfg.MessageRetention, Auth: testVerifier(t, cfg), PlusAddressing: cfg.PlusAddressing}
	cmds := &command.Commands{Store: store, Views: views.Reader, Hooks: wh, Names: tempmail.NewNames(cfg.ReservedNames), Log: log}
	srv := New(Deps{Config: cfg, Store: store, Views: views.Reader, Ingest: d, Hooks: wh, Log: log, Commands: cmds})
	if err := cmds.SyncDomains(ctx, cfg.Domains); err != nil {
		t.Fatal(err)
	}
	srv.SetReady(true)
	h := &harness{t: t, js: node.JS, node: node, cfg: cfg, views: views, hooks: wh, api: srv, http: httptest.NewServer(srv),
		contract: newContract(t, srv.router)}
	t.Cleanup(h.http.Close)
	// Bounded, so that a hang fails its test with a message instead of
	// stalling the run until the global timeout.
	h.client = h.clientVia(http.DefaultTransport, 90*time.Second)
	h.smtp = ingest.NewSMTPServer(d, ingest.SMTPConfig{Addr: cfg.SMTPAddr})
	if err := h.smtp.Listen(); err != nil {
		t.Fatal(err)
	}
	go h.smtp.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		h.smtp.Shutdown(ctx)
	})
	return h
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
	req, err := http.NewRequest(method, h.http.URL+path, strings.NewReader(body))
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
