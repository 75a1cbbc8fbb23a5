package ingest_test

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/config"
	"tempmail/logs"
)

// logBuffer collects the service's log lines from all its goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines are the lines written so far that hold every one of words.
func (l *logBuffer) lines(words ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for line := range strings.SplitSeq(l.b.String(), "\n") {
		all := line != ""
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			out = append(out, line)
		}
	}
	return out
}

// startLogged starts the service with cfg, its log (text, info and above)
// written to the buffer returned.
func startLogged(t *testing.T, cfg config.Config) (*backend.Backend, *logBuffer) {
	t.Helper()
	out := &logBuffer{}
	return backendtest.StartWith(t, cfg, backend.Options{Logger: logs.New(out, "text", slog.LevelInfo)}), out
}

// hangUp says QUIT and waits for the server to close the connection: it
// ends the session (Logout) before it closes it.
func (c *conn) hangUp() {
	c.t.Helper()
	c.cmd(221, "QUIT")
	if _, err := io.Copy(io.Discard, c.r); err != nil {
		c.t.Fatalf("after QUIT: %v", err)
	}
}

// rejected reads tempmail_messages_rejected_total{reason} from the
// metrics (what /metrics shows).
func rejected(t *testing.T, svc *backend.Backend, reason string) int {
	t.Helper()
	n, _ := backendtest.Metric(t, svc, "tempmail_messages_rejected_total", `reason="`+reason+`"`)
	return int(n)
}

// A session refusing a thousand recipients (issue 38: one wrote 10,000
// lines in 2.6 s) logs its first three refusals and, at its end, one line
// saying how many more there were; the metric counts every one.
func TestRefusedRecipientsAreCountedAndLoggedAFewTimes(t *testing.T) {
	t.Parallel()
	svc, out := startLogged(t, testConfig(t))
	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO client.example")
	c.cmd(250, "MAIL FROM:<s@example.com>")
	const refused, batch = 1000, 100
	for i := 0; i < refused; i += batch {
		// Pipelined, a hundred at a time, as a spammer's client would.
		var cmds strings.Builder
		for j := range batch {
			fmt.Fprintf(&cmds, "RCPT TO:<x%d@unserved%d.example>\r\n", i+j, i+j)
		}
		c.write(cmds.String())
		for range batch {
			if code, msg := c.reply(); code != 550 || !strings.HasPrefix(msg, "5.7.1") {
				t.Fatalf("a recipient on a domain not served: %d %s, want 550 5.7.1", code, msg)
			}
		}
	}
	c.hangUp()

	lines := out.lines(`msg="SMTP: rejected"`)
	if len(lines) != 3 || !strings.Contains(lines[0], "reason=not_served reply=550 client=127.0.0.1") {
		t.Errorf("%d refusals logged, want the session's first 3:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	summary := out.lines(`msg="SMTP: more refusals in this session were not logged"`)
	if len(summary) != 1 || !strings.Contains(summary[0], "client=127.0.0.1 not_logged=997 reasons=not_served:997") {
		t.Errorf("the session's end: %q, want one line saying 997 not_served were not logged", summary)
	}
	if n := rejected(t, svc, "not_served"); n != refused {
		t.Errorf("tempmail_messages_rejected_total{reason=not_served} = %d, want %d", n, refused)
	}
}

// A client's refusals over many connections are logged ten times a
// minute in all: thirty connections refused over the per-client cap, then
// recipients refused in the session it holds, cost ten lines; the metrics
// count them all.
func TestRefusalLinesAreBoundedPerClient(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.SMTPMaxConnsPerIP = 1
	svc, out := startLogged(t, cfg)
	held := dial(t, svc.SMTPAddr())
	const conns = 30
	for range conns {
		over, err := net.Dial("tcp", svc.SMTPAddr())
		if err != nil {
			t.Fatal(err)
		}
		// The 421 is written after the refusal is counted and logged.
		greeting, err := io.ReadAll(over)
		over.Close()
		if !strings.HasPrefix(string(greeting), "421 4.7.0") {
			t.Fatalf("a connection over the cap was greeted %q (%v), want 421 4.7.0", greeting, err)
		}
	}
	held.cmd(250, "EHLO client.example")
	held.cmd(250, "MAIL FROM:<s@example.com>")
	for i := range 5 {
		held.cmd(550, fmt.Sprintf("RCPT TO:<x@unserved%d.example>", i))
	}
	held.hangUp()

	if lines := out.lines(`msg="SMTP: rejected"`, "client=127.0.0.1"); len(lines) != 10 {
		t.Errorf("%d refusals logged, want the client's 10 a minute:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if lines := out.lines("reason=not_served"); len(lines) != 0 {
		t.Errorf("refused recipients logged past the client's share: %q", lines)
	}
	if n := rejected(t, svc, "too_many_connections"); n != conns {
		t.Errorf("too_many_connections counted %d, want %d", n, conns)
	}
	if n := rejected(t, svc, "not_served"); n != 5 {
		t.Errorf("not_served counted %d, want 5", n)
	}
}
