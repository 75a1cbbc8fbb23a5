package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"html"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// A Playwright suite that signs up on a product's site with a MailSlurp
// inbox, as such suites are written, run unchanged by Playwright's own
// runner against tempmail: testdata/playwright-mailslurp (@playwright/test
// and mailslurp-client at exact versions), the browser Debian's Chromium.

// playwrightChromium is where Debian's chromium package puts the browser,
// as in the web package's browser tests (web/browser_test.go); .ci/run
// installs it. Playwright is given it as launchOptions.executablePath and
// downloads no browser of its own.
const playwrightChromium = "/usr/bin/chromium"

// needChromium skips the test, loudly, when Debian's Chromium is missing,
// or fails it where it must run: on CI (as the web package's browser tests
// do) and with TEMPMAIL_NODE_CLIENTS=required.
func needChromium(t *testing.T, what string) {
	t.Helper()
	if _, err := os.Stat(playwrightChromium); err == nil {
		return
	}
	msg := fmt.Sprintf("%s is not installed (apt-get install chromium): %s", playwrightChromium, what)
	if os.Getenv("CI") != "" || os.Getenv("TEMPMAIL_NODE_CLIENTS") == "required" {
		t.Fatal(msg + " (CI or TEMPMAIL_NODE_CLIENTS=required: .ci/run installs Debian's chromium)")
	}
	fmt.Fprintf(os.Stderr, "\n*** SKIPPED %s: %s ***\n\n", t.Name(), msg)
	t.Skip(msg)
}

// signupSite is a product's sign-up in three pages: an email field; once
// it is sent, a mail over SMTP to that address with a six-digit code and a
// code field; the right code, "Verified".
type signupSite struct {
	t    *testing.T
	smtp string

	mu       sync.Mutex
	codes    map[string]string // address → the code mailed to it
	verified []string          // the addresses verified, in order
}

const signupPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example: sign up</title></head><body>
%s
</body></html>`

func (s *signupSite) page(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, signupPage, body)
}

func (s *signupSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == "GET" && r.URL.Path == "/":
		s.page(w, http.StatusOK, `<h1>Sign up</h1>
<form method="post" action="/signup">
<label>Email <input type="email" name="email" required></label>
<button type="submit">Sign up</button>
</form>`)
	case r.Method == "POST" && r.URL.Path == "/signup":
		addr := r.PostFormValue("email")
		n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
		if err != nil || addr == "" || strings.ContainsAny(addr, "\r\n<>") {
			s.page(w, http.StatusBadRequest, `<h1>Bad request</h1>`)
			return
		}
		code := fmt.Sprintf("%06d", n.Int64())
		s.mu.Lock()
		s.codes[addr] = code
		s.mu.Unlock()
		msg := "From: Example <no-reply@signup.example>\r\nTo: " + addr + "\r\nSubject: Your verification code\r\n" +
			"Content-Type: text/plain; charset=utf-8\r\n\r\nWelcome to Example!\r\n\r\nYour verification code is " + code + ".\r\n"
		if err := servicetest.TrySend(s.smtp, "no-reply@signup.example", addr, msg); err != nil {
			s.t.Errorf("the site's mail to %s: %v", addr, err)
			s.page(w, http.StatusInternalServerError, `<h1>We could not send you a mail</h1>`)
			return
		}
		s.page(w, http.StatusOK, `<h1>Check your email</h1>
<p>We sent a code to `+html.EscapeString(addr)+`.</p>
<form method="post" action="/verify">
<input type="hidden" name="email" value="`+html.EscapeString(addr)+`">
<label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>
<button type="submit">Verify</button>
</form>`)
	case r.Method == "POST" && r.URL.Path == "/verify":
		addr, code := r.PostFormValue("email"), r.PostFormValue("code")
		s.mu.Lock()
		want, ok := s.codes[addr]
		ok = ok && code == want
		if ok {
			s.verified = append(s.verified, addr)
		}
		s.mu.Unlock()
		if !ok {
			s.page(w, http.StatusUnprocessableEntity, `<h1>Wrong code</h1>`)
			return
		}
		s.page(w, http.StatusOK, `<h1>Verified</h1><p>Welcome, `+html.EscapeString(addr)+`.</p>`)
	default:
		http.NotFound(w, r)
	}
}

// playwrightReport is what Playwright's json reporter writes: its counts,
// the errors outside tests, and the suites (one a file) with their specs.
type playwrightReport struct {
	Stats struct {
		Expected, Unexpected, Skipped, Flaky int
	}
	Errors []json.RawMessage
	Suites []playwrightSuite
}

type playwrightSuite struct {
	Title  string
	Specs  []playwrightSpec
	Suites []playwrightSuite
}

type playwrightSpec struct {
	Title string
	OK    bool
	Tests []struct {
		Status  string // expected, unexpected, skipped, flaky
		Results []struct{ Status string }
	}
}

// specs is every spec of the suites, nested ones too.
func (s playwrightSuite) specs() []playwrightSpec {
	all := append([]playwrightSpec(nil), s.Specs...)
	for _, in := range s.Suites {
		all = append(all, in.specs()...)
	}
	return all
}

// TestPlaywrightSignUpWithMailSlurp: Playwright's runner (npx playwright
// test) runs signup.spec.mjs in Chromium: the spec makes an inbox with
// mailslurp-client (a tenant's key, the family's basePath), signs up with
// its address on the site this test serves, which mails the code over
// SMTP into tempmail; the spec waits for it with the SDK, reads the code
// (the SDK's content match and a regex on the body, which must agree),
// types it and sees "Verified". The runner must exit 0 and report one test
// run and passed (none skipped, flaky or failed), and the site must have
// verified the inbox's address.
func TestPlaywrightSignUpWithMailSlurp(t *testing.T) {
	t.Parallel()
	const what = "the MailSlurp family was not checked from a Playwright suite (@playwright/test with mailslurp-client)"
	needChromium(t, what)
	dir := npmPackages(t, "playwright-mailslurp", what, "playwright.config.mjs", "signup.spec.mjs")
	cfg := testConfig(t.TempDir(), "tempmail.test")
	cfg.APIToken = adminToken
	svc, base := startServiceWith(t, cfg)
	key := newTenantKey(t, base, adminToken, newTenant(t, base, adminToken, "shop"), `["inboxes"]`)

	site := &signupSite{t: t, smtp: svc.SMTPAddr(), codes: map[string]string{}}
	srv := httptest.NewServer(site)
	defer srv.Close()

	out := t.TempDir()
	report := filepath.Join(out, "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// --no: the runner installed beside the spec, never one fetched now.
	cmd := exec.CommandContext(ctx, "npx", "--no", "playwright", "test")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"SIGNUP_URL="+srv.URL,
		"CHROMIUM_PATH="+playwrightChromium,
		"PLAYWRIGHT_OUTPUT_DIR="+filepath.Join(out, "test-results"),
		"PLAYWRIGHT_JSON_OUTPUT_FILE="+report,
		"MAILSLURP_BASE_PATH="+base+"/compat/mailslurp",
		"MAILSLURP_API_KEY="+key,
		// No browser is fetched, whatever asks.
		"PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("npx playwright test: %v in %s", err, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("npx playwright test: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("Playwright's json report: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	var r playwrightReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("Playwright's json report: %v\n%s", err, b)
	}
	var specs []playwrightSpec
	for _, s := range r.Suites {
		specs = append(specs, s.specs()...)
	}
	ran := len(specs) == 1 && specs[0].OK && len(specs[0].Tests) == 1 && specs[0].Tests[0].Status == "expected" &&
		len(specs[0].Tests[0].Results) == 1 && specs[0].Tests[0].Results[0].Status == "passed"
	if r.Stats.Expected != 1 || r.Stats.Unexpected != 0 || r.Stats.Skipped != 0 || r.Stats.Flaky != 0 || len(r.Errors) != 0 || !ran ||
		!strings.Contains(stdout.String(), "1 passed") {
		t.Fatalf("Playwright's report: stats %+v, errors %s, specs %+v, want 1 passed and nothing else\nstdout: %s\nstderr: %s",
			r.Stats, r.Errors, specs, stdout.Bytes(), stderr.Bytes())
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	if len(site.codes) != 1 || len(site.verified) != 1 || !strings.HasSuffix(site.verified[0], "@tempmail.test") {
		t.Errorf("the site mailed %v and verified %v: want one address of tempmail.test, verified", site.codes, site.verified)
	}
}
