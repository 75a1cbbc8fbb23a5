package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/smtp"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tempmail/logs"
)

// testVersion is what TestMain stamps the binary with, as make build does.
const testVersion = "v0.0.0-test-stamp"

// syncBuffer collects a service's log lines from all its goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// send makes a request with headers (name, value, ...) and returns its
// status and body.
func send(t *testing.T, method, url, body string, headers ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func sendOK(t *testing.T, want int, method, url, body string, headers ...string) map[string]any {
	t.Helper()
	code, b := send(t, method, url, body, headers...)
	if code != want {
		t.Fatalf("%s %s: %d %s, want %d", method, url, code, b, want)
	}
	var v map[string]any
	_ = json.Unmarshal(b, &v)
	return v
}

// A whole scenario, with JSON logs and the access log on: every line is a
// JSON object, the lines operators count are there, and no line carries a
// token, the read key or the API token, but the one that hands the
// generated API token to the operator.
func TestLogsAreJSONAndCarryNoSecret(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.ReadKey = "read-key-Zq81vN3x"
	cfg.RequireToken = true
	cfg.AccessLog = true
	cfg.LogFormat = "json"
	var out syncBuffer
	svc, err := startLogged(t, cfg, logs.New(&out, cfg.LogFormat, slog.LevelDebug))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(svc) })
	base := "http://" + svc.HTTPAddr()
	apiToken := svc.Config.APIToken
	auth := []string{"Authorization", "Token " + apiToken}
	rk := []string{"X-Read-Key", cfg.ReadKey}
	const subject, body = "Subject-Never-Logged", "Body-Never-Logged 482913"

	// An inbox of each family; each has a token.
	a := sendOK(t, 201, "POST", base+"/api/inboxes/create_inbox/", `{"domain_id":1}`, auth...)
	b := sendOK(t, 201, "POST", base+"/api/create-temp-email/", `{"email_name":"logged-b"}`)
	c := sendOK(t, 201, "POST", base+"/inboxes/", "")
	secrets := map[string]string{"API token": apiToken, "read key": cfg.ReadKey,
		"family A token": a["access_token"].(string), "family B token": b["token"].(string), "family C token": c["token"].(string)}
	for _, to := range []string{a["email"].(string), b["email"].(string), c["address"].(string)} {
		if err := sendSMTP(svc, to, subject, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := sendSMTP(svc, "nobody@tempmail.test", subject, body); err == nil {
		t.Fatal("mail to nobody was accepted")
	}
	sendOK(t, 201, "POST", base+"/api/webhook/email/", `{"to":"`+c["address"].(string)+`","from":"w@example.com","subject":"`+subject+`","text":"`+body+`"}`, auth...)

	// Reads, with the token in the path, the read key and the API token.
	ctok := c["token"].(string)
	sendOK(t, 200, "GET", base+"/inboxes/"+ctok+"/latest/?wait=5", "", rk...)
	sendOK(t, 200, "GET", base+"/inboxes/"+ctok+"/otp/", "", rk...)
	send(t, "GET", base+"/inboxes/"+ctok+"/messages/", "")
	send(t, "GET", base+"/api/inboxes/"+a["id"].(string)+"/emails/", "", auth...)
	send(t, "GET", base+"/api/mailstore/mailbox/logged-b/", "")
	// Error paths: a wrong or missing key or token, unknown things, a bad body.
	for _, r := range []struct {
		method, path, body string
		headers            []string
		want               int
	}{
		{"GET", "/inboxes/" + ctok + "/latest/", "", []string{"X-Read-Key", "wrong-" + cfg.ReadKey}, 403},
		{"GET", "/inboxes/" + ctok + "/latest/", "", nil, 401},
		{"GET", "/api/inboxes/" + a["id"].(string) + "/", "", []string{"Authorization", "Token wrong-" + apiToken}, 401},
		{"GET", "/inboxes/" + ctok + "x/messages/", "", nil, 404},
		{"PUT", "/inboxes/" + ctok + "/", "", nil, 405},
		{"POST", "/api/create-temp-email/", "{not json", nil, 400},
		{"GET", "/inboxes/" + ctok + "/otp/?pattern=(", "", rk, 400},
	} {
		if code, got := send(t, r.method, base+r.path, r.body, r.headers...); code != r.want {
			t.Errorf("%s %s: %d %s, want %d", r.method, r.path, code, got, r.want)
		}
	}
	send(t, "DELETE", base+"/inboxes/"+ctok+"/", "")
	stop(svc) // every line written

	text := out.String()
	counts := map[string]int{}
	var tokenLines int
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, line)
		}
		msg, _ := v["msg"].(string)
		counts[msg]++
		for what, secret := range secrets {
			if !strings.Contains(line, secret) {
				continue
			}
			if what == "API token" && strings.HasPrefix(msg, "generated an API token") {
				tokenLines++
				continue
			}
			t.Errorf("the %s is in line %d: %s", what, i+1, line)
		}
		if strings.Contains(line, "Never-Logged") {
			t.Errorf("a subject or body is in line %d: %s", i+1, line)
		}
		switch msg {
		case "http request":
			if r, _ := v["route"].(string); !strings.HasPrefix(r, "/") && r != "unmatched" {
				t.Errorf("access log line without a route pattern: %s", line)
			}
			for _, k := range []string{"method", "status", "bytes", "duration_ms", "client"} {
				if _, ok := v[k]; !ok {
					t.Errorf("access log line without %s: %s", k, line)
				}
			}
		case "mail accepted":
			if v["rcpts"] != 1.0 || v["size"] == nil || v["duration_ms"] == nil || len(v["ids"].([]any)) != 1 {
				t.Errorf("delivery line: %s", line)
			}
		case "SMTP: rejected":
			if v["reason"] != "no_mailbox" || v["client"] != "127.0.0.1" || v["reply"] != 550.0 {
				t.Errorf("rejection line: %s", line)
			}
		}
	}
	if tokenLines != 1 {
		t.Errorf("the generated API token is in %d lines, want 1", tokenLines)
	}
	if counts["mail accepted"] != 4 || counts["SMTP: rejected"] != 1 || counts["http request"] < 15 || counts["tempmail ready"] != 1 {
		t.Errorf("lines by message: %v", counts)
	}
	if !strings.Contains(text, `"route":"/inboxes/{token}/latest"`) || !strings.Contains(text, `"via":"webhook"`) {
		t.Errorf("no access line for /inboxes/{token}/latest, or no webhook delivery line:\n%s", text)
	}
}

// metric finds a sample in Prometheus text: the first line of the metric
// whose labels include all of labels (name="value" each).
func metric(body, name string, labels ...string) (float64, bool) {
	for _, line := range strings.Split(body, "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		matched := true
		for _, l := range labels {
			matched = matched && strings.Contains(rest, l)
		}
		if !matched {
			continue
		}
		f, err := strconv.ParseFloat(rest[strings.LastIndexByte(rest, ' ')+1:], 64)
		return f, err == nil
	}
	return 0, false
}

func scrape(t *testing.T, base string) string {
	t.Helper()
	code, b := call(t, "GET", base+"/metrics", "")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	return string(b)
}

// After some traffic, /metrics has every histogram and gauge an operator
// graphs, with values that fit the traffic; the counts of inboxes and
// messages survive a restart and a rebuild.
func TestMetricsOperatorsGraph(t *testing.T) {
	dir := t.TempDir()
	svc, base := startService(t, dir)
	var tokens []string
	for range 3 {
		in := createTokenInbox(t, base)
		tokens = append(tokens, in.Token)
		for i := range 2 {
			if err := sendSMTP(svc, in.Address, fmt.Sprint("m", i), "x"); err != nil {
				t.Fatal(err)
			}
		}
	}
	id, _ := createInboxA(t, base, `{"domain_id":1}`)
	if code, _ := call(t, "DELETE", base+"/inboxes/"+tokens[0]+"/", ""); code != 204 {
		t.Fatalf("delete inbox: %d", code)
	}
	list := listMessages(t, base, tokens[1])
	if code, _ := call(t, "DELETE", base+"/inboxes/"+tokens[1]+"/messages/"+list[0].ID+"/", ""); code != 204 {
		t.Fatalf("delete message: %d", code)
	}
	// Live: inboxes 2 and 3 and the family A one; messages 1 + 2.
	const wantInboxes, wantMessages = 3, 3

	// Held: a long-poll and an event stream; open: an SMTP connection.
	heldCtx, endHeld := context.WithCancel(context.Background())
	defer endHeld()
	poll, _ := http.NewRequestWithContext(heldCtx, "GET", base+"/inboxes/"+tokens[2]+"/latest/?wait=30&after="+listMessages(t, base, tokens[2])[0].ID, nil)
	go func() {
		if resp, err := testClient.Do(poll); err == nil {
			resp.Body.Close()
		}
	}()
	req, _ := http.NewRequestWithContext(heldCtx, "GET", base+"/api/inboxes/"+id+"/events/", nil)
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	conn, err := smtp.Dial(svc.SMTP.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	var body string
	eventually(t, "gauges of held requests, connections and counts", func() bool {
		body = scrape(t, base)
		held, _ := metric(body, "tempmail_http_held_requests")
		conns, _ := metric(body, "tempmail_smtp_connections")
		inboxes, _ := metric(body, "tempmail_inboxes_live")
		messages, _ := metric(body, "tempmail_messages_stored")
		return held == 2 && conns == 1 && inboxes == wantInboxes && messages == wantMessages
	})
	for _, m := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"tempmail_smtp_data_duration_seconds_count", nil, 6},
		{"tempmail_smtp_data_duration_seconds_sum", nil, 1e-6},
		{"tempmail_smtp_data_duration_seconds_bucket", []string{`le="+Inf"`}, 6},
		{"tempmail_projection_apply_delay_seconds_count", nil, 10},
		{"tempmail_projection_apply_delay_seconds_sum", nil, 1e-6},
		{"tempmail_http_request_duration_seconds_count", []string{`route="/inboxes"`, `method="POST"`}, 3},
		{"tempmail_http_request_duration_seconds_bucket", []string{`route="/inboxes/{token}/messages"`, `le="+Inf"`}, 2},
		{"tempmail_nats_connected", nil, 1},
		{"tempmail_nats_reconnects_total", nil, 0},
		{"tempmail_build_info", []string{`version="`, `go_version="` + runtime.Version() + `"`}, 1},
		{"tempmail_http_requests_total", []string{`route="/inboxes"`, `status="201"`}, 3},
		{"tempmail_messages_received_total", nil, 6},
		{"tempmail_projection_lag_events", []string{`partition="sys"`}, 0},
	} {
		v, ok := metric(body, m.name, m.labels...)
		if !ok || v < m.min {
			t.Errorf("%s%v = %v (present %v), want at least %v", m.name, m.labels, v, ok, m.min)
		}
	}
	// Sane: the SMTP and event-to-view times of a quiet test are far below
	// a second on average, and a held request is not a slow one.
	for _, h := range []string{"tempmail_smtp_data_duration_seconds", "tempmail_projection_apply_delay_seconds"} {
		sum, _ := metric(body, h+"_sum")
		n, _ := metric(body, h+"_count")
		if sum/n > 1 {
			t.Errorf("%s: mean %.3fs", h, sum/n)
		}
	}
	if _, ok := metric(body, "tempmail_http_request_duration_seconds_count", `route="/api/inboxes/{id}/events"`); ok {
		t.Error("an event stream is timed as a request")
	}
	if v, _ := metric(body, "tempmail_nats_connected"); v != 1 {
		t.Errorf("tempmail_nats_connected %v", v)
	}
	// Every metric the dashboard graphs exists (under that name).
	dashboard, err := os.ReadFile("../../deploy/grafana/tempmail.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Panels []json.RawMessage }
	if err := json.Unmarshal(dashboard, &d); err != nil || len(d.Panels) == 0 {
		t.Fatalf("deploy/grafana/tempmail.json: %v", err)
	}
	if err := sendSMTP(svc, "nobody@tempmail.test", "x", "x"); err == nil {
		t.Fatal("mail to nobody accepted")
	}
	body = scrape(t, base)
	for _, name := range regexp.MustCompile(`tempmail_[a-z_]+`).FindAllString(string(dashboard), -1) {
		name = strings.TrimSuffix(name, "_bucket")
		if name == "tempmail_event_store_errors_total" {
			continue // shows with the first error
		}
		if !strings.Contains(body, "# TYPE "+name+" ") {
			t.Errorf("the dashboard graphs %s, which /metrics lacks", name)
		}
	}
	endHeld()
	conn.Close()
	eventually(t, "held and connections back to 0", func() bool {
		body = scrape(t, base)
		held, _ := metric(body, "tempmail_http_held_requests")
		conns, _ := metric(body, "tempmail_smtp_connections")
		return held == 0 && conns == 0
	})

	// The counts are the service's, not the process's: a restart goes on
	// from them, and a rebuild counts the same.
	counted := func(base, when string) {
		t.Helper()
		body := scrape(t, base)
		inboxes, ok1 := metric(body, "tempmail_inboxes_live")
		messages, ok2 := metric(body, "tempmail_messages_stored")
		if !ok1 || !ok2 || inboxes != wantInboxes || messages != wantMessages {
			t.Errorf("%s: %v inboxes and %v messages, want %d and %d", when, inboxes, messages, wantInboxes, wantMessages)
		}
	}
	stop(svc)
	svc, base = startService(t, dir)
	counted(base, "after a restart")
	stop(svc)
	if err := rebuild(ctxT(t), testConfig(dir), slog.New(slog.DiscardHandler), io.Discard); err != nil {
		t.Fatal(err)
	}
	_, base = startService(t, dir)
	counted(base, "after a rebuild")
}

// The version make build stamps shows in `tempmail version`, in /metrics
// and in the start-up line; here with JSON logs from the environment.
func TestStampedVersionShowsEverywhere(t *testing.T) {
	out, err := exec.Command(binary, "version").Output()
	if err != nil || string(out) != "tempmail "+testVersion+"\n" {
		t.Errorf("version: %q %v, want %q", out, err, "tempmail "+testVersion)
	}
	cmd := exec.Command(binary, "serve", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0", "--smtp-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TEMPMAIL_LOG_FORMAT=json")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan map[string]any, 100)
	bad := make(chan string, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var v map[string]any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				bad <- sc.Text()
				return
			}
			lines <- v
		}
	}()
	var ready map[string]any
	for ready == nil {
		select {
		case v := <-lines:
			if v["msg"] == "tempmail ready" {
				ready = v
			}
		case line := <-bad:
			t.Fatalf("not a JSON line: %s", line)
		case <-time.After(30 * time.Second):
			t.Fatal("tempmail serve did not become ready")
		}
	}
	if ready["version"] != testVersion {
		t.Errorf("ready line: version %v, want %s", ready["version"], testVersion)
	}
	body := scrape(t, "http://"+ready["http"].(string))
	want := `tempmail_build_info{go_version="` + runtime.Version() + `",version="` + testVersion + `"} 1`
	if !strings.Contains(body, want) {
		t.Errorf("metrics lack %s", want)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	for v := range lines { // to the end: every line JSON, the last ones included
		_ = v
	}
	select {
	case line := <-bad:
		t.Errorf("not a JSON line: %s", line)
	default:
	}
}
