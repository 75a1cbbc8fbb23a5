package main

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// TestWebhookDeliveriesOutliveSIGKILL: the process is killed with a
// delivery under way, and then with one waiting for its retry; after a
// restart on the same data directory both are delivered, each under the
// webhook-id it had before.
func TestWebhookDeliveriesOutliveSIGKILL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flags := []string{"--webhook-allow-private", "--webhook-retry-schedule", "2s"}
	cmd, base, smtpAddr := runServeSMTP(t, dir, flags...)
	in := createTokenInbox(t, base)

	type hit struct{ id, subject string }
	var mode atomic.Int32 // 0: hold the request until the client goes; 1: answer 500; 2: answer 204
	held, got := make(chan hit, 10), make(chan hit, 10)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			Data struct{ Subject string } `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&ev)
		h := hit{r.Header.Get("webhook-id"), ev.Data.Subject}
		switch mode.Load() {
		case 0:
			held <- h
			<-r.Context().Done() // the sender is gone
		case 1:
			held <- h
			w.WriteHeader(http.StatusInternalServerError)
		default:
			got <- h
		}
	}))
	defer rc.Close()
	code, b := call(t, "POST", base+"/inboxes/"+in.Token+"/webhooks/", `{"url":"`+rc.URL+`"}`)
	if code != 201 {
		t.Fatalf("subscribe: %d %s", code, b)
	}
	var sub struct{ ID string }
	_ = json.Unmarshal(b, &sub)
	wait := func(ch chan hit, what string) hit {
		t.Helper()
		select {
		case h := <-ch:
			return h
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: nothing within 30 s", what)
		}
		return hit{}
	}
	kill := func() {
		t.Helper()
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}

	// Killed while the attempt is under way.
	if err := servicetest.Mail(smtpAddr, in.Address, "under way", "hello"); err != nil {
		t.Fatal(err)
	}
	first := wait(held, "the first attempt")
	kill()
	mode.Store(2)
	cmd, base, smtpAddr = runServeSMTP(t, dir, flags...)
	if h := wait(got, "the delivery after a restart"); h != first {
		t.Errorf("after the restart: %+v, want %+v", h, first)
	}

	// Killed while a retry waits.
	mode.Store(1)
	if err := servicetest.Mail(smtpAddr, in.Address, "retried", "hello"); err != nil {
		t.Fatal(err)
	}
	failed := wait(held, "the failing attempt")
	eventually.True(t, "the retry scheduled", func() bool {
		_, b := call(t, "GET", base+"/inboxes/"+in.Token+"/webhooks/"+sub.ID+"/deliveries/", "")
		var log []struct {
			EventID string     `json:"webhook_event_id"`
			Next    *time.Time `json:"next_attempt_at"`
		}
		_ = json.Unmarshal(b, &log)
		return len(log) > 0 && log[0].EventID == failed.id && log[0].Next != nil
	})
	kill()
	killedAt := time.Now()
	mode.Store(2)
	_, base = runServe(t, dir, flags...)
	if h := wait(got, "the retry after a restart"); h != failed {
		t.Errorf("after the restart: %+v, want %+v", h, failed)
	}
	if d := time.Since(killedAt); d < time.Second {
		t.Errorf("the retry came %v after the kill: before its 2 s wait, so not the scheduled one", d)
	}

	// What operators graph: outcomes, attempt durations, deliveries waiting.
	eventually.True(t, "metrics", func() bool {
		_, b := call(t, "GET", base+"/metrics", "")
		m := string(b)
		return strings.Contains(m, `tempmail_webhook_deliveries_total{outcome="delivered"} 1`) &&
			strings.Contains(m, "tempmail_webhook_attempt_seconds_count 1") &&
			strings.Contains(m, "tempmail_webhook_pending_deliveries 0")
	})
}

// TestDocsWebhookReceiverVerifies: the receiver docs/webhooks.md shows
// takes a real delivery, whose signature it checks, and refuses a forged
// one; the page shows its check as it is in the file.
func TestDocsWebhookReceiverVerifies(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../examples/webhook-receiver/main.go")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	check := string(src[strings.Index(string(src), "// verified checks"):])
	if !strings.Contains(string(page), "```go\n"+check+"```") {
		t.Error("docs/webhooks.md's receiver check differs from examples/webhook-receiver/main.go")
	}
	bin := filepath.Join(t.TempDir(), "webhook-receiver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/webhook-receiver").CombinedOutput(); err != nil {
		t.Fatalf("build the example: %v\n%s", err, out)
	}

	cfg := testConfig(t.TempDir())
	cfg.WebhookAllowPrivate = true
	svc, base := startServiceWith(t, cfg)
	in := createTokenInbox(t, base)
	addr := freeAddr(t)
	code, b := call(t, "POST", base+"/inboxes/"+in.Token+"/webhooks/", `{"url":"http://`+addr+`/hook"}`)
	if code != 201 {
		t.Fatalf("subscribe: %d %s", code, b)
	}
	var sub struct{ Secret string }
	_ = json.Unmarshal(b, &sub)

	rc := exec.Command(bin, "-addr", addr)
	rc.Env = append(os.Environ(), "WEBHOOK_SECRET="+sub.Secret)
	out, _ := rc.StdoutPipe()
	if err := rc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Process.Kill(); _ = rc.Wait() })
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	eventually.True(t, "the receiver listens", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	resp, err := http.Post("http://"+addr+"/hook", "application/json", strings.NewReader(`{"type":"message.received"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a forged delivery: %d, want 401", resp.StatusCode)
	}
	if err := servicetest.Mail(svc.SMTPAddr(), in.Address, "checked by the example", "hello"); err != nil {
		t.Fatal(err)
	}
	select {
	case line := <-lines:
		if !strings.HasPrefix(line, "msg_") || !strings.Contains(line, `"subject":"checked by the example"`) {
			t.Errorf("the receiver printed %q", line)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the example receiver printed nothing within 20 s")
	}
}
