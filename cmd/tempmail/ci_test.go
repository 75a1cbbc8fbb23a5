package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// The CLI in a CI job (issue 30): the token from the environment, --env
// lines to put it there, --after for a code asked for again, inbox
// delete, and errors that never show a secret in a log.

func codeMail(code string) string {
	return "From: Shop <shop@example.com>\r\nSubject: Your code\r\nContent-Type: text/plain\r\n\r\n" +
		"Your code is " + code + ". Confirm: https://shop.example/confirm?c=" + code + "&u=7\r\n"
}

// TestInboxNewEnvFeedsTheOtherCommands: `inbox new --env` prints two lines
// a shell evals and $GITHUB_ENV takes, and wait and inbox delete find the
// token in TEMPMAIL_TOKEN; a flag given wins over it.
func TestInboxNewEnvFeedsTheOtherCommands(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	status, out, errOut := runCLI(map[string]string{"TEMPMAIL_SERVER": base}, "inbox", "new", "--env", "--name", "ci-env")
	m := regexp.MustCompile(`^TEMPMAIL_TOKEN=([A-Z2-7]{26})\nTEMPMAIL_ADDRESS=(ci-env@tempmail\.test)\n$`).FindStringSubmatch(out)
	if status != 0 || m == nil || errOut != "" {
		t.Fatalf("inbox new --env: %d %q %q", status, out, errOut)
	}
	token, address := m[1], m[2]
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, codeMail("482913"))

	env := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_TOKEN": token}
	if status, out, errOut := runCLI(env, "wait", "--timeout", "10s"); status != 0 || out != "482913\n" || errOut != "" {
		t.Errorf("wait with TEMPMAIL_TOKEN: %d %q %q", status, out, errOut)
	}
	wrong := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_TOKEN": "WRONGWRONGWRONGWRONGWRONG2"}
	if status, out, errOut := runCLI(wrong, "wait", "--token", token, "--timeout", "0s"); status != 0 || out != "482913\n" {
		t.Errorf("--token over a wrong TEMPMAIL_TOKEN: %d %q %q", status, out, errOut)
	}
	if status, _, errOut := runCLI(env, "wait", "--token", "WRONGWRONGWRONGWRONGWRONG2", "--timeout", "0s"); status != 2 ||
		errOut != "tempmail wait: GET "+base+"/inboxes/…/otp/: no inbox has this token (deleted, expired, or never made)\n" {
		t.Errorf("a wrong --token over TEMPMAIL_TOKEN: %d %q", status, errOut)
	}
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"wait", "--server", base}, "tempmail wait: --token (or TEMPMAIL_TOKEN) is required"},
		{[]string{"inbox", "delete", "--server", base}, "tempmail inbox delete: --token (or TEMPMAIL_TOKEN) is required"},
		{[]string{"inbox", "new", "--server", base, "--env", "--json"}, "tempmail inbox new: choose one of --json and --env"},
	} {
		if status, out, errOut := runCLI(nil, c.args...); status != 2 || out != "" || !strings.HasPrefix(errOut, c.stderr) {
			t.Errorf("%v: %d %q %q, want 2 and %q", c.args, status, out, errOut, c.stderr)
		}
	}
	if status, out, errOut := runCLI(env, "inbox", "delete"); status != 0 || out != "deleted the inbox and its mail\n" || errOut != "" {
		t.Errorf("inbox delete with TEMPMAIL_TOKEN: %d %q %q", status, out, errOut)
	}
	// Help shows where the token comes from, never the token.
	if _, out, _ := runCLI(env, "wait", "-h"); !strings.Contains(out, "env TEMPMAIL_TOKEN") || strings.Contains(out, token) {
		t.Errorf("wait -h: %q", out)
	}
}

// TestInboxNewEnvPrintsOnlyWhatAShellReadsAsItIs: a server that answers a
// token or an address a shell would run, or that would end a line of
// $GITHUB_ENV, is refused with nothing on stdout.
func TestInboxNewEnvPrintsOnlyWhatAShellReadsAsItIs(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{
		`{"token":"$(touch /tmp/pwned)","address":"a@b.test"}`,
		`{"token":"ABC","address":"a@b.test\nPATH=/tmp"}`,
		`{"token":"ABC DEF","address":"a@b.test"}`,
		`{"token":"ABC","address":"a'b@b.test"}`,
		`{"token":"","address":"a@b.test"}`,
	} {
		hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(answer))
		}))
		status, out, errOut := runCLI(nil, "inbox", "new", "--env", "--server", hostile.URL)
		hostile.Close()
		if status != 2 || out != "" || !strings.Contains(errOut, "that a shell would not read as it is") {
			t.Errorf("%s: %d %q %q", answer, status, out, errOut)
		}
	}
}

// TestWaitAfterSkipsTheCodeAlreadyUsed: a "send me a new code" flow. The
// first code is in the inbox; wait --after (the first message's id, or a
// time after it arrived) skips it and waits for the next.
func TestWaitAfterSkipsTheCodeAlreadyUsed(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	env := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_TOKEN": in.Token}
	before := time.Now().UTC().Format(time.RFC3339Nano)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, codeMail("111111"))
	_, first, _ := runCLI(env, "wait", "--message", "--timeout", "10s")
	var m1 struct{ ID string }
	if err := json.Unmarshal([]byte(first), &m1); err != nil || m1.ID == "" {
		t.Fatalf("the first message: %q %v", first, err)
	}
	used := time.Now().UTC().Format(time.RFC3339Nano) // after the first code arrived, before the next is asked for

	// Nothing after it yet: each --after skips the first code.
	for _, after := range []string{m1.ID, strings.ToUpper(m1.ID), used} {
		for _, kind := range []string{"--otp", "--link", "--message"} {
			status, out, errOut := runCLI(env, "wait", kind, "--after", after, "--timeout", "0s")
			if status != 1 || out != "" || !strings.HasPrefix(errOut, "tempmail wait: no ") {
				t.Errorf("%s --after %s with only the first mail: %d %q %q", kind, after, status, out, errOut)
			}
		}
	}
	// Asked while waiting: the next code, not the first.
	done := make(chan [3]string, 1)
	go func() {
		status, out, errOut := runCLI(env, "wait", "--from", "shop", "--after", used, "--timeout", "30s")
		done <- [3]string{string(rune('0' + status)), out, errOut}
	}()
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, codeMail("222222"))
	if r := <-done; r != [3]string{"0", "222222\n", ""} {
		t.Errorf("wait --after a time: %q", r)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--after", m1.ID}, "222222\n"},
		{[]string{"--after", before}, "222222\n"}, // the newest after a time before both
		{[]string{"--link", "--after", used}, "https://shop.example/confirm?c=222222&u=7\n"},
	} {
		if status, out, errOut := runCLI(env, append([]string{"wait", "--timeout", "10s"}, c.args...)...); status != 0 || out != c.want {
			t.Errorf("wait %v: %d %q %q, want %q", c.args, status, out, errOut, c.want)
		}
	}
	// Mail received before a time to come is skipped too.
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if status, out, errOut := runCLI(env, "wait", "--after", future, "--timeout", "0s"); status != 1 || out != "" {
		t.Errorf("--after an hour from now: %d %q %q", status, out, errOut)
	}
	for _, bad := range []string{"yesterday", "2026-11-25", "2026-11-25 10:00:00", "01a207a0-b06a-7c83-830c", "x"} {
		status, out, errOut := runCLI(env, "wait", "--after", bad, "--timeout", "0s")
		if status != 2 || out != "" || !strings.Contains(errOut, "is neither a message id") {
			t.Errorf("--after %q: %d %q %q", bad, status, out, errOut)
		}
	}
}

// TestInboxDeleteIsIdempotent: deleting an inbox already gone is what was
// asked for (exit 0, and it says so); a 404 that is not the service's
// answer for the inbox is an error.
func TestInboxDeleteIsIdempotent(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, codeMail("482913"))
	args := []string{"inbox", "delete", "--server", base, "--token", in.Token}
	if status, out, errOut := runCLI(nil, args...); status != 0 || out != "deleted the inbox and its mail\n" || errOut != "" {
		t.Errorf("delete: %d %q %q", status, out, errOut)
	}
	if code, body := call(t, "GET", base+"/inboxes/"+in.Token+"/", ""); code != http.StatusNotFound {
		t.Errorf("the inbox after delete: %d %s", code, body)
	}
	const gone = "the inbox was already gone: no inbox has this token (deleted, expired, or never made)\n"
	if status, out, errOut := runCLI(nil, args...); status != 0 || out != gone || errOut != "" {
		t.Errorf("delete again: %d %q %q", status, out, errOut)
	}
	if status, out, errOut := runCLI(nil, "inbox", "delete", "--server", base+"/not-tempmail", "--token", in.Token); status != 2 || out != "" ||
		errOut != "tempmail inbox delete: DELETE "+base+"/not-tempmail/inboxes/…/: Not found (HTTP 404); "+serverHint+"\n" {
		t.Errorf("delete under a wrong path: %d %q %q", status, out, errOut)
	}
	if status, out, _ := runCLI(nil, "inbox", "delete", "-h"); status != 0 || !strings.HasPrefix(out, "usage: tempmail inbox delete") {
		t.Errorf("inbox delete -h: %d %q", status, out)
	}
}

// TestClientErrorsShowNoSecret: CI logs are often public. Go quotes the
// request's URL in its errors (`Get "http://127.0.0.1:9/inboxes/<token>/
// otp/?wait=2": ... connection refused`); every command prints them with
// the token and the read key written out as "…".
func TestClientErrorsShowNoSecret(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	// A server that redirects to itself for ever: Go's error quotes the
	// redirect's URL.
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.String()+"x", http.StatusFound)
	}))
	defer loop.Close()
	const token, key = "XJOBSECRETTOKENXJOBSECRET2", "read-key-s3cret"
	for _, server := range []struct{ url, want string }{{closed, "connection refused"}, {loop.URL, "stopped after 10 redirects"}} {
		env := map[string]string{"TEMPMAIL_SERVER": server.url, "TEMPMAIL_TOKEN": token, "TEMPMAIL_READ_KEY": key}
		for _, args := range [][]string{
			{"wait", "--timeout", "2s"},
			{"wait", "--link", "--timeout", "0s", "--token", token, "--read-key", key},
			{"wait", "--message", "--after", time.Now().Format(time.RFC3339)},
			{"inbox", "delete"},
			{"inbox", "new", "--env"},
		} {
			status, out, errOut := runCLI(env, args...)
			if status != 2 || out != "" || !strings.Contains(errOut, server.want) ||
				strings.Contains(errOut, token) || strings.Contains(errOut, key) ||
				args[1] != "new" && !strings.Contains(errOut, "/inboxes/…/") {
				t.Errorf("%s %v: %d %q %q", server.url, args, status, out, errOut)
			}
		}
	}
}
