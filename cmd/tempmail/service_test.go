package main

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// testConfig is servicetest's configuration with its data in dir and, if
// given, domains.
func testConfig(dir string, domains ...string) config.Config {
	cfg := servicetest.ConfigIn(dir)
	if len(domains) > 0 {
		cfg.Domains = domains
	}
	return cfg
}

// startService runs the whole service in process on dir, stopped at the end
// of the test (or earlier by stop).
func startService(t *testing.T, dir string, domains ...string) (svc *service.Service, base string) {
	t.Helper()
	return startServiceWith(t, testConfig(dir, domains...))
}

// startServiceWith runs the whole service in process with cfg, as this
// build names itself.
func startServiceWith(t *testing.T, cfg config.Config) (svc *service.Service, base string) {
	t.Helper()
	svc = servicetest.StartWith(t, cfg, service.Options{Version: buildVersion()})
	return svc, servicetest.URL(svc)
}

// stop shuts svc down before the test ends, as SIGTERM does.
func stop(svc *service.Service) { servicetest.Stop(svc) }

// What the tests here say to a service, in process or a child, is
// servicetest's, under the names this package's tests use.
var (
	call             = servicetest.Call
	createTokenInbox = servicetest.CreateInbox
	listMessages     = servicetest.Messages
	deliverTo        = servicetest.Deliver
	scrape           = servicetest.Scrape
	freeAddr         = servicetest.FreeAddr
	freeAddrs        = servicetest.FreeAddrs
	testClient       = servicetest.Client
)

// tokenInbox is a family C inbox as its creation answers it.
type tokenInbox = servicetest.Inbox

func TestServiceKeepsEverythingAcrossRestartAndRebuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svc, base := startService(t, dir)
	in := createTokenInbox(t, base)
	for i := range 3 {
		deliverTo(t, svc, in.Token, fmt.Sprint("hello ", i))
	}
	stop(svc)

	svc, base = startService(t, dir)
	list := listMessages(t, base, in.Token)
	if len(list) != 3 || list[0].Subject != "hello 2" || list[2].Subject != "hello 0" || list[0].To != in.Address {
		t.Fatalf("after restart: %+v", list)
	}
	deliverTo(t, svc, in.Token, "after restart")
	if n := len(listMessages(t, base, in.Token)); n != 4 {
		t.Fatalf("after restart and one more message: %d listed, want 4", n)
	}

	// rebuild refuses while a server holds the data directory...
	var out strings.Builder
	err := rebuild(t.Context(), testConfig(dir), slog.New(slog.DiscardHandler), &out)
	if err == nil || !strings.Contains(err.Error(), "in use by a running tempmail") {
		t.Fatalf("rebuild beside a running server: %v", err)
	}
	stop(svc)
	// ...and runs once it has stopped; the next server serves the new views.
	if err := rebuild(t.Context(), testConfig(dir), slog.New(slog.DiscardHandler), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "rebuilt views generation 2") {
		t.Errorf("rebuild said %q", out.String())
	}
	svc, base = startService(t, dir)
	if svc.Views.Generation() != 2 {
		t.Errorf("serving generation %d after rebuild, want 2", svc.Views.Generation())
	}
	if list := listMessages(t, base, in.Token); len(list) != 4 || list[0].Subject != "after restart" {
		t.Fatalf("after rebuild: %+v", list)
	}
}

// The binary, built once for the tests that run it as a child process.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tempmail-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "tempmail")
	// Stamped as make build stamps it (TestStampedVersionShowsEverywhere).
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version="+testVersion, "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build tempmail: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runServe starts `tempmail serve` as a child and returns it with its HTTP
// base URL, read from its "ready" log line.
func runServe(t *testing.T, dir string, extra ...string) (*exec.Cmd, string) {
	cmd, base, _ := runServeSMTP(t, dir, extra...)
	return cmd, base
}

// runServeSMTP is runServe that also returns the SMTP address.
func runServeSMTP(t *testing.T, dir string, extra ...string) (*exec.Cmd, string, string) {
	t.Helper()
	args := append([]string{"serve", "--data-dir", dir, "--http-addr", "127.0.0.1:0", "--smtp-addr", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(binary, args...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := regexp.MustCompile(`tempmail ready" http=(\S+) smtp=(\S+)`)
	addrs := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				addrs <- m
			}
		}
	}()
	select {
	case m := <-addrs:
		return cmd, "http://" + m[1], m[2]
	case <-time.After(30 * time.Second):
		t.Fatal("tempmail serve did not become ready")
	}
	return nil, "", ""
}

// TestServeStopsWithinFiveSecondsOnSignals: SIGINT and SIGTERM stop
// `tempmail serve` cleanly (exit 0) within the shutdown's grace, and its
// data is there for the next run.
func TestServeStopsWithinFiveSecondsOnSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd, base := runServe(t, dir)
			in := createTokenInbox(t, base)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("after %v: exit %v, want 0", sig, err)
				}
			case <-time.After(service.ShutdownGrace):
				t.Fatalf("still running %v after %v", service.ShutdownGrace, sig)
			}
			// The data survived the stop: the next run serves the inbox.
			cmd, base = runServe(t, dir)
			if list := listMessages(t, base, in.Token); len(list) != 0 {
				t.Errorf("inbox after restart: %+v", list)
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
	}
}

// Every message that got its 250 survives a SIGKILL of the service in the
// middle of a stream of deliveries, once.
func TestAcknowledgedMailSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd, base, smtpAddr := runServeSMTP(t, dir, "--smtp-rate-per-ip", "0")
	in := createTokenInbox(t, base)

	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	enough := make(chan struct{}) // closed at the 200th 250
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				subject := fmt.Sprintf("w%d-m%d", w, i)
				body := fmt.Sprintf("From: s@example.com\r\nTo: %s\r\nSubject: %s\r\n\r\n%s\r\n", in.Address, subject, strings.Repeat("x", 2000))
				if err := servicetest.TrySend(smtpAddr, "s@example.com", in.Address, body); err != nil {
					return // the server is gone
				}
				mu.Lock()
				if acked = append(acked, subject); len(acked) == 200 {
					close(enough)
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(time.Minute):
		t.Fatal("200 messages were not acknowledged within a minute")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	wg.Wait()

	_, base = runServe(t, dir)
	seen := map[string]int{}
	for _, m := range listMessages(t, base, in.Token) {
		seen[m.Subject]++
	}
	for _, s := range acked {
		if seen[s] != 1 {
			t.Errorf("acknowledged message %s is there %d times after SIGKILL and restart", s, seen[s])
		}
	}
	t.Logf("%d messages acknowledged before SIGKILL, %d readable after restart", len(acked), len(seen))
}

func TestBadFlagStopsStartupWithOneLine(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "serve", "--max-inbox-ttl", "a week").CombinedOutput()
	if code := exitCode(err); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if s := strings.TrimSpace(string(out)); strings.Count(s, "\n") != 0 || !strings.Contains(s, "--max-inbox-ttl") || !strings.Contains(s, "must be a duration") {
		t.Errorf("output %q: want one line naming the flag and what is allowed", s)
	}
	if out, err := exec.Command(binary, "version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "tempmail ") {
		t.Errorf("version: %q %v", out, err)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
