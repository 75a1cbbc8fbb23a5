package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/smtp"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tempmail/service"
	"tempmail/service/servicetest"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/config"
	"tempmail/events"
)

func testConfig(dir string, domains ...string) config.Config {
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.SMTPAddr = "127.0.0.1:0"
	cfg.AuthChecks = false // no test asks the network's DNS; auth_test.go brings its own
	if len(domains) > 0 {
		cfg.Domains = domains
	}
	return cfg
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startService runs the whole service in process on dir, stopped at the end
// of the test (or earlier by stop).
func startService(t *testing.T, dir string, domains ...string) (svc *service.Service, base string) {
	t.Helper()
	return startServiceWith(t, testConfig(dir, domains...))
}

// startServiceWith runs the whole service in process with cfg.
func startServiceWith(t *testing.T, cfg config.Config) (svc *service.Service, base string) {
	t.Helper()
	svc = servicetest.StartWith(t, cfg, service.Options{Version: buildVersion()})
	return svc, servicetest.URL(svc)
}

// startLogged starts the service with cfg, logging to log, and says why
// it could not.
func startLogged(t *testing.T, cfg config.Config, log *slog.Logger) (*service.Service, error) {
	t.Helper()
	return servicetest.Try(t, cfg, service.Options{Logger: log, Version: buildVersion()})
}

func stop(svc *service.Service) { servicetest.Stop(svc) }

func call(t *testing.T, method, url string, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

type tokenInbox struct {
	Token, Address, CreatedAt, ExpiresAt string
}

func createTokenInbox(t *testing.T, base string) tokenInbox {
	t.Helper()
	code, body := call(t, "POST", base+"/inboxes/", "{}")
	if code != http.StatusCreated {
		t.Fatalf("POST /inboxes/: %d %s", code, body)
	}
	var in struct {
		Token     string `json:"token"`
		Address   string `json:"address"`
		CreatedAt string `json:"created_at"`
		ExpiresAt string `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		t.Fatal(err)
	}
	return tokenInbox{in.Token, in.Address, in.CreatedAt, in.ExpiresAt}
}

type summary struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	IsRead  bool   `json:"is_read"`
	To      string `json:"to"`
}

// listMessages reads every message of an inbox, page by page.
func listMessages(t *testing.T, base, token string) []summary {
	t.Helper()
	var all []summary
	for {
		code, body := call(t, "GET", fmt.Sprintf("%s/inboxes/%s/messages/?limit=200&offset=%d", base, token, len(all)), "")
		if code != http.StatusOK {
			t.Fatalf("GET messages: %d %s", code, body)
		}
		var page []summary
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		all = append(all, page...)
		if len(page) < 200 {
			return all
		}
	}
}

// deliverTo publishes mail for an inbox through the event store, as ingest does.
func deliverTo(t *testing.T, svc *service.Service, token, subject string) events.Ack {
	t.Helper()
	ctx := ctxT(t)
	in, err := svc.Views.InboxByToken(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7()).String()
	acks, err := svc.Store.AppendMail(ctx, []events.Copy{{Mail: events.MailReceived{InboxID: in.ID, MessageID: id, Address: in.Address,
		ReceivedAt: time.Now().UTC(), Size: 10, Content: events.Content{Raw: []byte("Subject: " + subject + "\r\n\r\n."),
			From: "a@example.com", Subject: subject}}, LifecycleSeq: in.LifecycleSeq, DedupeID: id}})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Views.WaitApplied(ctx, acks[0]); err != nil {
		t.Fatal(err)
	}
	return acks[0]
}

func TestCreatedInboxIsReadableByTheVeryNextRequest(t *testing.T) {
	_, base := startService(t, t.TempDir())
	seen := map[string]bool{}
	for range 30 {
		in := createTokenInbox(t, base)
		if list := listMessages(t, base, in.Token); len(list) != 0 {
			t.Fatalf("new inbox lists %d messages", len(list))
		}
		if !regexp.MustCompile(`^[a-z0-9]{10}@tempmail\.test$`).MatchString(in.Address) || len(in.Token) < 22 {
			t.Errorf("inbox %+v: want a 10-character address on tempmail.test and a long token", in)
		}
		created, err1 := time.Parse(time.RFC3339Nano, in.CreatedAt)
		expires, err2 := time.Parse(time.RFC3339Nano, in.ExpiresAt)
		if err1 != nil || err2 != nil || expires.Sub(created) != 24*time.Hour || !strings.HasSuffix(in.CreatedAt, "Z") {
			t.Errorf("timestamps %q %q: want UTC and a 24h lifetime", in.CreatedAt, in.ExpiresAt)
		}
		if seen[in.Address] || seen[in.Token] {
			t.Fatalf("address or token handed out twice: %+v", in)
		}
		seen[in.Address], seen[in.Token] = true, true
	}
	if code, body := call(t, "GET", base+"/inboxes/not-a-token/messages", ""); code != 404 || !strings.Contains(string(body), `"Inbox not found"`) {
		t.Errorf("unknown token: %d %s", code, body)
	}
	if code, body := call(t, "GET", base+"/healthz", ""); code != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Errorf("healthz: %d %s", code, body)
	}
}

// A single node opens its embedded server's client listener when asked, so
// that an operator can look at the streams with the nats CLI.
func TestSingleNodeOpensTheNATSListenerWhenAsked(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.NATSListen = freeAddr(t)
	svc, base := startServiceWith(t, cfg)
	in := createTokenInbox(t, base)
	deliverTo(t, svc, in.Token, "seen from outside")

	nc, err := nats.Connect("nats://" + cfg.NATSListen)
	if err != nil {
		t.Fatalf("connect to --nats-listen %s: %v", cfg.NATSListen, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctxT(t), "EVENTS")
	if err != nil {
		t.Fatalf("EVENTS through the listener: %v", err)
	}
	info, err := st.Info(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	// The domains, the inbox's creation and its message.
	if info.State.Msgs < 3 {
		t.Errorf("EVENTS holds %d events through the listener, want at least 3", info.State.Msgs)
	}
}

func TestServiceKeepsEverythingAcrossRestartAndRebuild(t *testing.T) {
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
	err := rebuild(ctxT(t), testConfig(dir), slog.New(slog.DiscardHandler), &out)
	if err == nil || !strings.Contains(err.Error(), "in use by a running tempmail") {
		t.Fatalf("rebuild beside a running server: %v", err)
	}
	stop(svc)
	// ...and runs once it has stopped; the next server serves the new views.
	if err := rebuild(ctxT(t), testConfig(dir), slog.New(slog.DiscardHandler), &out); err != nil {
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

func TestDomainIDsStayStableWhenTheConfigurationChanges(t *testing.T) {
	dir := t.TempDir()
	ids := func(domains ...string) map[string]string {
		svc, _ := startService(t, dir, domains...)
		defer stop(svc)
		list, _, err := svc.Views.Domains(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, d := range list {
			out[d.Name] = fmt.Sprintf("%d/%v", d.ID, d.Active)
		}
		return out
	}
	check := func(got map[string]string, want string) {
		t.Helper()
		var parts []string
		for _, name := range []string{"a.test", "b.test", "c.test"} {
			if v, ok := got[name]; ok {
				parts = append(parts, name+"="+v)
			}
		}
		if s := strings.Join(parts, " "); s != want {
			t.Errorf("domains %s, want %s", s, want)
		}
	}
	check(ids("a.test", "b.test"), "a.test=1/true b.test=2/true")
	check(ids("b.test", "a.test"), "a.test=1/true b.test=2/true")
	check(ids("b.test"), "a.test=1/false b.test=2/true")
	check(ids("c.test", "a.test", "b.test"), "a.test=1/true b.test=2/true c.test=3/true")
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

func TestServeStopsWithinFiveSecondsOnSignals(t *testing.T) {
	dir := t.TempDir()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
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
	}
}

// Every message that got its 250 survives a SIGKILL of the service in the
// middle of a stream of deliveries, once.
func TestAcknowledgedMailSurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	cmd, base, smtpAddr := runServeSMTP(t, dir, "--smtp-rate-per-ip", "0")
	in := createTokenInbox(t, base)

	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				subject := fmt.Sprintf("w%d-m%d", w, i)
				body := fmt.Sprintf("From: s@example.com\r\nTo: %s\r\nSubject: %s\r\n\r\n%s\r\n", in.Address, subject, strings.Repeat("x", 2000))
				if err := smtp.SendMail(smtpAddr, nil, "s@example.com", []string{in.Address}, []byte(body)); err != nil {
					return // the server is gone
				}
				mu.Lock()
				acked = append(acked, subject)
				mu.Unlock()
			}
		})
	}
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 {
			break
		}
		time.Sleep(5 * time.Millisecond)
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

// testClient bounds every request, so that a hang fails its test with a
// message instead of stalling the run until the global timeout.
var testClient = &http.Client{Timeout: 90 * time.Second}

// TestFortyFiveConnectionsFromOneAddressAreGreeted: a relay in front opens
// as many connections as its concurrency and its connection cache allow
// (Postfix: 20 per destination and more cached), all from one address;
// under the defaults every one is greeted, where a 421 would make it put
// the whole destination off.
func TestFortyFiveConnectionsFromOneAddressAreGreeted(t *testing.T) {
	t.Parallel()
	svc, _ := startService(t, t.TempDir())
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	buf := make([]byte, 512)
	for i := range 45 {
		c, err := net.Dial("tcp", svc.SMTP.Addr())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		n, err := c.Read(buf)
		if err != nil || !strings.HasPrefix(string(buf[:n]), "220 ") {
			t.Fatalf("connection %d greeted with %q (%v), want 220", i+1, buf[:n], err)
		}
	}
}
