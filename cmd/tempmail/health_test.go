package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// TestServeExitsNonZeroWhenNATSIsGone runs `tempmail serve` as its
// supervisor would see it: when the server closes its connection for good,
// serve stops and exits 1.
func TestServeExitsNonZeroWhenNATSIsGone(t *testing.T) {
	t.Parallel()
	proxy := servicetest.ExternalNATS(t)
	httpAddr := freeAddr(t)
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--data-dir", t.TempDir(), "--http-addr", httpAddr, "--smtp-addr", "127.0.0.1:0",
			"--nats-url", proxy.URL()}, func(string) string { return "" }, &bytes.Buffer{}, &stderr)
	}()
	eventually.True(t, "serve is ready", func() bool {
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

// TestReadyzTellsWhatItServesAround: /livez answers while the process
// runs; /readyz (and /healthz) stays ready past an event its views cannot
// apply (one of a schema version no build has written), which is set
// aside, and names it among its warnings: the partition goes on, mail to
// its inboxes included. What keeps the service from serving (a listener
// that stops, NATS gone) is service/health_test.go's and
// TestServeExitsNonZeroWhenNATSIsGone's.
func TestReadyzTellsWhatItServesAround(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	if code, h := servicetest.Readiness(t, base); code != 200 || h.Status != "ok" || len(h.Warnings) > 0 {
		t.Fatalf("/readyz at start: %d %+v", code, h)
	}
	ack, err := svc.Node.JS.Publish(t.Context(), "ev.p1.eA.inbox", []byte(`{"type":"InboxCreated","v":99,"data":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("projection partition p1: 1 events set aside, not applied to the views: %d (undecodable: ", ack.Sequence)
	eventually.True(t, "/readyz names the event set aside", func() bool {
		code, h := servicetest.Readiness(t, base)
		return code == http.StatusOK && h.Status == "ok" && len(h.Warnings) == 1 && strings.HasPrefix(h.Warnings[0], want)
	})
	for _, path := range []string{"/healthz", "/readyz", "/livez"} {
		if code, _ := call(t, "GET", base+path, ""); code != http.StatusOK {
			t.Errorf("%s with an event set aside: %d", path, code)
		}
	}
	if code := run([]string{"healthcheck", "--http-addr", svc.HTTPAddr()}, func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Errorf("healthcheck with an event set aside exited %d, want 0", code)
	}
	if n, ok := servicetest.Metric(scrape(t, base), "tempmail_projection_events_set_aside", `partition="p1"`); !ok || n != 1 {
		t.Errorf("tempmail_projection_events_set_aside{partition=\"p1\"} = %v (%v), want 1", n, ok)
	}
}

// TestHealthcheckCommand: `tempmail healthcheck` exits 0 against a ready
// service (with the same --http-addr or TEMPMAIL_HTTP_ADDR as serve), and 1
// when it is stopping or nothing listens.
func TestHealthcheckCommand(t *testing.T) {
	t.Parallel()
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
