package main

import (
	"net/smtp"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The README's quick-start block, pasted into a shell as written, works
// against a running service (only the ports are the test's own).
func TestReadmeQuickStartWorksAsWritten(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "swaks", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- quickstart:begin -->")
	block, _, ok2 := strings.Cut(block, "<!-- quickstart:end -->")
	if !ok || !ok2 {
		t.Fatal("README has no quick-start block")
	}
	script := strings.TrimSpace(block)
	script = strings.TrimPrefix(script, "```sh")
	script = strings.TrimSuffix(script, "```")

	_, base, smtpAddr := runServeSMTP(t, t.TempDir())
	script = strings.ReplaceAll(script, "localhost:8080", strings.TrimPrefix(base, "http://"))
	script = strings.ReplaceAll(script, "127.0.0.1:2525", smtpAddr)
	out, err := exec.Command("bash", "-eu", "-o", "pipefail", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("quick-start failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"otp":"482913"`) || !strings.Contains(last, `"subject":"Your sign-up code"`) {
		t.Errorf("the quick-start's last line is %q, want the code 482913\n%s", last, out)
	}
	if !strings.Contains(string(out), `"text":"Welcome! Your code is 482913.`) {
		t.Errorf("the message was not read back:\n%s", out)
	}
}

func TestMetricsAndHealth(t *testing.T) {
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	if err := smtp.SendMail(svc.SMTP.Addr(), nil, "s@example.com", []string{in.Address}, []byte("Subject: counted\r\n\r\nx\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := smtp.SendMail(svc.SMTP.Addr(), nil, "s@example.com", []string{"nobody@tempmail.test"}, []byte("Subject: x\r\n\r\nx\r\n")); err == nil {
		t.Fatal("mail to an unknown inbox was accepted")
	}
	call(t, "GET", base+"/inboxes/nope/messages/", "")
	code, body := call(t, "GET", base+"/metrics", "")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	for _, want := range []string{
		`tempmail_http_requests_total{method="POST",route="/inboxes",status="201"} 1`,
		`tempmail_http_requests_total{method="GET",route="/inboxes/{token}/messages",status="404"} 1`,
		`tempmail_projection_lag_events{partition="sys"} 0`,
		`tempmail_messages_received_total 1`,
		`tempmail_messages_rejected_total{reason="no_mailbox"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if code, _ := call(t, "GET", base+"/healthz", ""); code != 200 {
		t.Errorf("healthz while running: %d", code)
	}
	svc.API.Stopping()
	if code, body := call(t, "GET", base+"/healthz", ""); code != 503 || !strings.Contains(string(body), `"stopping"`) {
		t.Errorf("healthz while stopping: %d %s", code, body)
	}
}
