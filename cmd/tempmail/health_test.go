package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"tempmail/service"

	"github.com/nats-io/nats.go"

	"tempmail/service/servicetest"
)

// readiness is GET /readyz as a test sees it.
func readiness(t *testing.T, base string) (int, health) {
	t.Helper()
	code, body := call(t, "GET", base+"/readyz", "")
	var h health
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("/readyz body %q: %v", body, err)
	}
	return code, h
}

type health struct {
	Status  string   `json:"status"`
	Failing []string `json:"failing"`
}

// waitFatal waits for the service to give up, and returns why.
func waitFatal(t *testing.T, svc *service.Service) error {
	t.Helper()
	select {
	case err := <-svc.Fatal():
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the service went on after losing what it needs")
		return nil
	}
}

// TestConnectionClosedUnderTheServiceIsNeverA503Forever closes the service's
// NATS connection from outside in the two ways it can be closed: a
// connection cut (the client library reconnects, and the service carries
// on), and the server closing it for a protocol error (the client library
// gives up for good; the service reports it and stops, so that its
// supervisor starts it again).
func TestConnectionClosedUnderTheServiceIsNeverA503Forever(t *testing.T) {
	proxy := servicetest.ExternalNATS(t)
	cfg := testConfig(t.TempDir())
	cfg.NATSURL = proxy.URL()
	svc, base := startServiceWith(t, cfg)

	in := createTokenInbox(t, base)
	proxy.Cut()
	// Reconnected, it serves reads and writes again.
	eventually(t, "the service reconnects and reads", func() bool {
		code, _ := call(t, "GET", base+"/inboxes/"+in.Token+"/messages/", "")
		return code == http.StatusOK
	})
	if err := sendSMTP(svc, in.Address, "after the cut", "hello"); err != nil {
		t.Fatalf("mail after the cut: %v", err)
	}
	if code, h := readiness(t, base); code != 200 {
		t.Errorf("/readyz after reconnecting: %d %+v", code, h)
	}

	proxy.SendError("maximum control line exceeded")
	err := waitFatal(t, svc)
	if !strings.Contains(err.Error(), "maximum control line exceeded") {
		t.Errorf("the service stopped for %q, want the server's reason", err)
	}
	if code, h := readiness(t, base); code != http.StatusServiceUnavailable || !slices.Contains(h.Failing, "nats connection") {
		t.Errorf("/readyz with the connection gone: %d %+v", code, h)
	}
}

// TestEmbeddedConnectionKickedReconnects: the embedded server disconnects
// the service's in-process client (as an operator's kick would); the
// client connects again, and the service serves on.
func TestEmbeddedConnectionKickedReconnects(t *testing.T) {
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	ns := svc.Node.Server()
	conns, err := ns.Connz(nil)
	if err != nil || len(conns.Conns) == 0 {
		t.Fatalf("connz: %v %v", conns, err)
	}
	reconnected := svc.Node.Conn.StatusChanged(nats.CONNECTED)
	for _, c := range conns.Conns {
		if err := ns.DisconnectClientByID(c.Cid); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-reconnected:
	case <-time.After(20 * time.Second):
		t.Fatal("the service did not reconnect")
	}
	if err := sendSMTP(svc, in.Address, "after the kick", "hello"); err != nil {
		t.Fatalf("mail after the kick: %v", err)
	}
	code, body := call(t, "GET", base+"/inboxes/"+in.Token+"/latest/?wait=20", "")
	if code != 200 || !strings.Contains(string(body), `"subject":"after the kick"`) {
		t.Errorf("latest after the kick: %d %s", code, body)
	}
}

// TestServeExitsNonZeroWhenNATSIsGone runs `tempmail serve` as its
// supervisor would see it: when the server closes its connection for good,
// serve stops and exits 1.
func TestServeExitsNonZeroWhenNATSIsGone(t *testing.T) {
	proxy := servicetest.ExternalNATS(t)
	httpAddr := freeAddr(t)
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--data-dir", t.TempDir(), "--http-addr", httpAddr, "--smtp-addr", "127.0.0.1:0",
			"--nats-url", proxy.URL()}, func(string) string { return "" }, &bytes.Buffer{}, &stderr)
	}()
	eventually(t, "serve is ready", func() bool {
		resp, err := testClient.Get("http://" + httpAddr + "/readyz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
	proxy.SendError("maximum control line exceeded")
	select {
	case code := <-done:
		if code != 1 {
			t.Errorf("serve exited %d, want 1; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit after losing NATS")
	}
}

// TestReadyzTellsWhatFails: /livez answers while the process runs; /readyz
// (and /healthz) names what keeps the service from serving: a projection
// partition halted on an event this build cannot read (a listener that
// stops serving stops the service: service/health_test.go).
func TestReadyzTellsWhatFails(t *testing.T) {
	svc, base := startService(t, t.TempDir())
	if code, h := readiness(t, base); code != 200 || h.Status != "ok" {
		t.Fatalf("/readyz at start: %d %+v", code, h)
	}
	// An event of a schema version no build has written.
	if _, err := svc.Node.JS.Publish(ctxT(t), "ev.p1.eA.inbox", []byte(`{"type":"InboxCreated","v":99,"data":{}}`)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "/readyz names the halted partition", func() bool {
		code, h := readiness(t, base)
		return code == http.StatusServiceUnavailable && h.Status == "failing" && slices.Contains(h.Failing, "projection partition p1")
	})
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _ := call(t, "GET", base+path, ""); code != http.StatusServiceUnavailable {
			t.Errorf("%s with a halted partition: %d", path, code)
		}
	}
	if code, _ := call(t, "GET", base+"/livez", ""); code != 200 {
		t.Errorf("/livez: %d", code)
	}
	if code := run([]string{"healthcheck", "--http-addr", svc.HTTPAddr()}, func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{}); code != 1 {
		t.Errorf("healthcheck with a halted partition exited %d, want 1", code)
	}
}

// TestHealthcheckCommand: `tempmail healthcheck` exits 0 against a ready
// service (with the same --http-addr or TEMPMAIL_HTTP_ADDR as serve), and 1
// when it is stopping or nothing listens.
func TestHealthcheckCommand(t *testing.T) {
	svc, _ := startService(t, t.TempDir())
	env := func(k string) string {
		if k == "TEMPMAIL_HTTP_ADDR" {
			return svc.HTTPAddr()
		}
		return ""
	}
	var out bytes.Buffer
	if code := run([]string{"healthcheck"}, env, &out, &bytes.Buffer{}); code != 0 || !strings.Contains(out.String(), `"ok"`) {
		t.Errorf("healthcheck of a ready service: exit %d, %q", code, out.String())
	}
	svc.API.Stopping()
	var errOut bytes.Buffer
	if code := run([]string{"healthcheck"}, env, &bytes.Buffer{}, &errOut); code != 1 || !strings.Contains(errOut.String(), "stopping") {
		t.Errorf("healthcheck of a stopping service: exit %d, %q", code, errOut.String())
	}
	if code := run([]string{"healthcheck", "--http-addr", freeAddr(t)}, env, &bytes.Buffer{}, &bytes.Buffer{}); code != 1 {
		t.Errorf("healthcheck with nothing listening: exit %d", code)
	}
}
