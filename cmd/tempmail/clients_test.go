package main

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tempmail/client"
	"tempmail/service/servicetest"
)

// runCLI runs the binary's run() as the command line would, with env as
// the environment.
func runCLI(env map[string]string, args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	status = run(args, func(k string) string { return env[k] }, &out, &errOut)
	return status, out.String(), errOut.String()
}

const cliMail = "From: Shop <shop@example.com>\r\nSubject: Your sign-up code\r\nMIME-Version: 1.0\r\n" +
	"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n" +
	"--b\r\nContent-Type: text/plain\r\n\r\nYour code is 482913.\r\n" +
	"--b\r\nContent-Type: text/html\r\n\r\n<p>Your code is 482913. <a href=\"https://shop.example/verify?t=1&amp;u=2\">Verify</a></p>\r\n--b--\r\n"

func TestInboxNewPrintsTheAddress(t *testing.T) {
	t.Parallel()
	_, base := startService(t, t.TempDir())
	status, out, errOut := runCLI(nil, "inbox", "new", "--server", base)
	if status != 0 || !strings.HasSuffix(strings.TrimSpace(out), "@tempmail.test") || strings.Count(out, "\n") != 1 || errOut != "" {
		t.Errorf("inbox new: %d %q %q", status, out, errOut)
	}
	// TEMPMAIL_SERVER stands for --server.
	status, out, errOut = runCLI(map[string]string{"TEMPMAIL_SERVER": base}, "inbox", "new", "--json", "--name", "ci-1", "--domain", "tempmail.test")
	var in struct{ Token, Address string }
	if err := json.Unmarshal([]byte(out), &in); status != 0 || err != nil || in.Address != "ci-1@tempmail.test" || len(in.Token) != 26 {
		t.Errorf("inbox new --json: %d %q %q", status, out, errOut)
	}
	for _, c := range []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"a name taken", []string{"inbox", "new", "--server", base, "--name", "ci-1"}, 2, "tempmail inbox new: POST " + base + "/inboxes/: Email name already taken (HTTP 409)\n"},
		{"a bad name", []string{"inbox", "new", "--server", base, "--name", "No Spaces"}, 2, "Invalid name"},
		{"a server that is no URL", []string{"inbox", "new", "--server", "localhost:8080"}, 2, "is not a base URL"},
		{"no service there", []string{"inbox", "new", "--server", "http://127.0.0.1:1"}, 2, "POST http://127.0.0.1:1/inboxes/: dial tcp 127.0.0.1:1: connect: connection refused; is the service running at http://127.0.0.1:1 (--server, TEMPMAIL_SERVER)?\n"},
		{"no subcommand", []string{"inbox"}, 2, "usage: tempmail inbox new"},
		{"an argument", []string{"inbox", "new", "--server", base, "extra"}, 2, "tempmail inbox new: unexpected argument \"extra\"; run 'tempmail inbox new --help' for usage\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			status, out, errOut := runCLI(nil, c.args...)
			if status != c.status || out != "" || !strings.Contains(errOut, c.stderr) {
				t.Errorf("%v: %d %q %q, want %d and %q on stderr", c.args, status, out, errOut, c.status, c.stderr)
			}
		})
	}
}

// TestClientCommandsHelpGoesToStdout: help is asked for, so it goes to
// stdout with exit status 0, as the other commands' does.
func TestClientCommandsHelpGoesToStdout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inbox", "new", "-h"}, "usage: tempmail inbox new"},
		{[]string{"inbox", "--help"}, "usage: tempmail inbox new"},
		{[]string{"wait", "--help"}, "usage: tempmail wait [--token T]"},
		{[]string{"inbox", "delete", "--help"}, "usage: tempmail inbox delete"},
		{[]string{"mcp", "-h"}, "usage: tempmail mcp"},
	} {
		status, out, errOut := runCLI(map[string]string{"TEMPMAIL_READ_KEY": "s3cret-key"}, c.args...)
		if status != 0 || !strings.HasPrefix(out, c.want) || !strings.Contains(out, "-server") || errOut != "" ||
			strings.Contains(out, "s3cret-key") {
			t.Errorf("%v: %d %q %q", c.args, status, out, errOut)
		}
	}
}

// TestWaitPrintsWhatArrives: `tempmail wait` started before the mail is
// sent prints the code (by default), the link or the message, and exits
// 0; what matches already is printed at once.
func TestWaitPrintsWhatArrives(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	done := make(chan [3]string, 1)
	go func() {
		status, out, errOut := runCLI(nil, "wait", "--server", base, "--token", in.Token, "--from", "shop", "--timeout", "30s")
		done <- [3]string{string(rune('0' + status)), out, errOut}
	}()
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, cliMail)
	select {
	case r := <-done:
		if r != [3]string{"0", "482913\n", ""} {
			t.Errorf("wait --otp: status %s, stdout %q, stderr %q", r[0], r[1], r[2])
		}
	case <-time.After(25 * time.Second):
		t.Fatal("wait --otp did not end when the mail arrived")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--otp", "--pattern", `code is (\d+)`}, "482913\n"},
		{[]string{"--link", "--pattern", "verify"}, "https://shop.example/verify?t=1&u=2\n"},
		{[]string{"--message", "--subject", "sign-up"}, `"subject":"Your sign-up code"`},
	} {
		status, out, errOut := runCLI(map[string]string{"TEMPMAIL_SERVER": base}, append([]string{"wait", "--token", in.Token, "--timeout", "0s"}, c.args...)...)
		if status != 0 || !strings.Contains(out, c.want) || errOut != "" {
			t.Errorf("wait %v: %d %q %q, want %q", c.args, status, out, errOut, c.want)
		}
	}
}

// TestWaitExitStatus: 1 with one line on stderr when nothing comes in
// time; 2 for everything else, with what is wrong.
func TestWaitExitStatus(t *testing.T) {
	t.Parallel()
	_, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	start := time.Now()
	status, out, errOut := runCLI(nil, "wait", "--server", base, "--token", in.Token, "--timeout", "2s")
	if status != 1 || out != "" || errOut != "tempmail wait: no code within 2s\n" {
		t.Errorf("timeout: %d %q %q", status, out, errOut)
	}
	if took := time.Since(start); took < 2*time.Second || took > 10*time.Second {
		t.Errorf("a 2s wait took %v", took)
	}
	for _, c := range []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"a link in time", []string{"--link", "--timeout", "1s"}, 1, "tempmail wait: no link within 1s\n"},
		{"an unknown token", []string{"--token", "NOPE"}, 2, "tempmail wait: GET " + base + "/inboxes/…/otp/: no inbox has this token (deleted, expired, or never made)\n"},
		{"no token", []string{"--token", ""}, 2, "--token (or TEMPMAIL_TOKEN) is required"},
		{"two kinds", []string{"--otp", "--link"}, 2, "choose one of --otp, --link and --message"},
		{"a pattern for a message", []string{"--message", "--pattern", "x"}, 2, "--pattern applies to --otp and --link"},
		{"a bad pattern", []string{"--pattern", "("}, 2, "invalid pattern"},
		{"a negative timeout", []string{"--timeout", "-1s"}, 2, "--timeout must be from 0s to 24h0m0s"},
		{"a timeout without unit", []string{"--timeout", "5"}, 2, "tempmail wait: invalid value \"5\" for --timeout: not a duration (such as 90s, 2m or 1h30m); run 'tempmail wait --help' for usage\n"},
		{"an unknown flag", []string{"--until", "5s"}, 2, "tempmail wait: unknown flag --until; run 'tempmail wait --help' for usage\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"wait", "--server", base, "--token", in.Token}, c.args...)
			status, out, errOut := runCLI(nil, args...)
			if status != c.status || out != "" || !strings.Contains(errOut, c.stderr) {
				t.Errorf("%v: %d %q %q, want %d and %q on stderr", c.args, status, out, errOut, c.status, c.stderr)
			}
		})
	}
}

// firstAnswer is a transport that says when the first answer came back.
type firstAnswer struct {
	requests atomic.Int32
	waits    chan string // the wait of each request
	answered chan struct{}
}

func (f *firstAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	f.waits <- r.URL.Query().Get("wait")
	resp, err := http.DefaultTransport.RoundTrip(r)
	if f.requests.Add(1) == 1 {
		close(f.answered)
	}
	return resp, err
}

// TestLongWaitsChainHeldRequests: a wait longer than one held request is a
// chain of them, and finds mail that arrives during a later one. (The
// client holds each for MaxWait; the CLI's is the service's 60 s.)
func TestLongWaitsChainHeldRequests(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	c, err := client.New(base)
	if err != nil {
		t.Fatal(err)
	}
	tr := &firstAnswer{waits: make(chan string, 100), answered: make(chan struct{})}
	c.HTTP, c.MaxWait = &http.Client{Transport: tr}, time.Second
	type result struct {
		code *client.Code
		err  error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		code, err := c.WaitOTP(ctx, in.Token, client.Query{}, 30*time.Second)
		done <- result{code, err}
	}()
	<-tr.answered // the first held request ended with nothing
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, cliMail)
	r := <-done
	if r.err != nil || r.code.Code != "482913" {
		t.Fatalf("WaitOTP: %v %+v", r.err, r.code)
	}
	if n := tr.requests.Load(); n < 2 {
		t.Errorf("%d requests, want a chain", n)
	}
	close(tr.waits)
	for w := range tr.waits {
		if w != "1" {
			t.Errorf("a request held for %q s, want 1", w)
		}
	}
}

// TestWaitSendsTheReadKey: against a service with --read-key, wait sends
// --read-key, or TEMPMAIL_READ_KEY, as X-Read-Key.
func TestWaitSendsTheReadKey(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t.TempDir())
	cfg.ReadKey = "s3cret-key"
	svc, base := startServiceWith(t, cfg)
	in := createTokenInbox(t, base)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, cliMail)
	args := []string{"wait", "--server", base, "--token", in.Token, "--timeout", "10s"}
	for _, c := range []struct {
		name   string
		env    map[string]string
		extra  []string
		status int
		out    string
		stderr string
	}{
		{"without", nil, nil, 2, "", "tempmail wait: GET " + base + "/inboxes/…/otp/: read key required (HTTP 401); check --read-key (TEMPMAIL_READ_KEY), or give a tenant's key in --key (TEMPMAIL_KEY)\n"},
		{"from the flag", nil, []string{"--read-key", "s3cret-key"}, 0, "482913\n", ""},
		{"from the environment", map[string]string{"TEMPMAIL_READ_KEY": "s3cret-key"}, nil, 0, "482913\n", ""},
		{"the flag first", map[string]string{"TEMPMAIL_READ_KEY": "s3cret-key"}, []string{"--read-key", "wrong"}, 2, "", "invalid read key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, out, errOut := runCLI(c.env, append(args, c.extra...)...)
			if status != c.status || out != c.out || !strings.Contains(errOut, c.stderr) {
				t.Errorf("%d %q %q, want %d %q %q", status, out, errOut, c.status, c.out, c.stderr)
			}
		})
	}
}

// TestWaitPrintsNothingATerminalRuns: what a sender wrote (a subject, a
// code) and what a server answers reach the terminal written out: escape
// sequences, C1 controls, bidirectional and invisible characters (issue
// 29: ESC ] in a subject set the terminal's title, U+202E turned a name
// around). A JSON answer stays JSON that decodes to the same text.
func TestWaitPrintsNothingATerminalRuns(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	subject := "Invoice \u009b2J\u202efdp.exe\u200b"
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, "From: shop@example.com\r\nSubject: "+mime.QEncoding.Encode("utf-8", subject)+
		"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ncode 48\u009b2913\u2066\r\n")
	args := []string{"wait", "--server", base, "--token", in.Token, "--timeout", "10s"}
	status, out, _ := runCLI(nil, append(args, "--pattern", `code (\S+)`)...)
	if status != 0 || out != `48\u009b2913\u2066`+"\n" {
		t.Errorf("--otp: %d %q", status, out)
	}
	status, out, _ = runCLI(nil, append(args, "--message")...)
	var m struct{ Subject string }
	if err := json.Unmarshal([]byte(out), &m); status != 0 || err != nil || m.Subject != subject ||
		!strings.Contains(out, `Invoice \u009b2J\u202efdp.exe\u200b`) {
		t.Errorf("--message: %d %q (%v)", status, out, err)
	}

	// A server that is not tempmail, or is not honest: its answers and
	// its errors are written out too.
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/otp/"):
			w.Write([]byte(`{"otp":"\u001b]0;pwned\u0007\u001b[2J482913"}`))
		case strings.HasSuffix(r.URL.Path, "/link/"):
			w.Write([]byte("{\"link\":\"https://x.example/\u202egpj.exe\"}"))
		default:
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"\u001b[31mno\u001b[0m\u009b"}`))
		}
	}))
	defer hostile.Close()
	args = []string{"wait", "--server", hostile.URL, "--token", "T", "--timeout", "0s"}
	for _, c := range []struct {
		flag, out, stderr string
		status            int
	}{
		{"--otp", `\x1b]0;pwned\x07\x1b[2J482913` + "\n", "", 0},
		{"--link", `https://x.example/\u202egpj.exe` + "\n", "", 0},
		{"--message", "", "tempmail wait: GET " + hostile.URL + `/inboxes/…/latest/: \x1b[31mno\x1b[0m\u009b (HTTP 400)` + "\n", 2},
	} {
		status, out, errOut := runCLI(nil, append(args, c.flag)...)
		if status != c.status || out != c.out || errOut != c.stderr {
			t.Errorf("%s: %d %q %q, want %d %q %q", c.flag, status, out, errOut, c.status, c.out, c.stderr)
		}
	}
}
