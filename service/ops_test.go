package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/smtp"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"tempmail/eventually"
	"tempmail/logs"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// What operators see of the service: its logs, /metrics, /healthz.

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

// sendOK makes a request that must answer want, and returns its JSON
// object.
func sendOK(t *testing.T, want int, method, url, body string, headers ...string) map[string]any {
	t.Helper()
	code, b := servicetest.Call(t, method, url, body, headers...)
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
	t.Parallel()
	cfg := servicetest.Config(t)
	cfg.ReadKey = "read-key-Zq81vN3x"
	cfg.RequireToken = true
	cfg.AccessLog = true
	cfg.LogFormat = "json"
	var out syncBuffer
	svc := servicetest.StartWith(t, cfg, service.Options{Logger: logs.New(&out, cfg.LogFormat, slog.LevelDebug)})
	base := servicetest.URL(svc)
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
		if err := servicetest.Mail(svc.SMTPAddr(), to, subject, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := servicetest.Mail(svc.SMTPAddr(), "nobody@tempmail.test", subject, body); err == nil {
		t.Fatal("mail to nobody was accepted")
	}
	sendOK(t, 201, "POST", base+"/api/webhook/email/", `{"to":"`+c["address"].(string)+`","from":"w@example.com","subject":"`+subject+`","text":"`+body+`"}`, auth...)

	// A tenant's key, made and used: the access log names its id, never it.
	tenant := sendOK(t, 201, "POST", base+"/api/tenants/", `{"name":"logged"}`, auth...)
	key := sendOK(t, 201, "POST", base+"/api/tenants/"+tenant["id"].(string)+"/keys/", `{"name":"k","scopes":["inboxes"]}`, auth...)
	secrets["API key"] = key["key"].(string)
	sendOK(t, 201, "POST", base+"/api/inboxes/create_inbox/", `{"domain_id":1}`, "Authorization", "Bearer "+key["key"].(string))

	// Reads, with the token in the path, the read key and the API token.
	ctok := c["token"].(string)
	sendOK(t, 200, "GET", base+"/inboxes/"+ctok+"/latest/?wait=5", "", rk...)
	sendOK(t, 200, "GET", base+"/inboxes/"+ctok+"/otp/", "", rk...)
	servicetest.Call(t, "GET", base+"/inboxes/"+ctok+"/messages/", "")
	servicetest.Call(t, "GET", base+"/api/inboxes/"+a["id"].(string)+"/emails/", "", auth...)
	servicetest.Call(t, "GET", base+"/api/mailstore/mailbox/logged-b/", "")
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
		if code, got := servicetest.Call(t, r.method, base+r.path, r.body, r.headers...); code != r.want {
			t.Errorf("%s %s: %d %s, want %d", r.method, r.path, code, got, r.want)
		}
	}
	servicetest.Call(t, "DELETE", base+"/inboxes/"+ctok+"/", "")
	servicetest.Stop(svc) // every line written

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
	if !strings.Contains(text, `"route":"/api/inboxes/create_inbox","status":201`) || !strings.Contains(text, `"key":"`+key["id"].(string)+`"`) {
		t.Errorf("no access line naming the key's id")
	}
	if !strings.Contains(text, `"route":"/inboxes/{token}/latest"`) || !strings.Contains(text, `"via":"webhook"`) {
		t.Errorf("no access line for /inboxes/{token}/latest, or no webhook delivery line:\n%s", text)
	}
}

// After some traffic, /metrics has every histogram and gauge an operator
// graphs, with values that fit the traffic; the counts of inboxes and
// messages survive a restart and a rebuild.
func TestMetricsOperatorsGraph(t *testing.T) {
	t.Parallel()
	cfg := servicetest.Config(t)
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	var tokens []string
	for range 3 {
		in := servicetest.CreateInbox(t, base)
		tokens = append(tokens, in.Token)
		for i := range 2 {
			if err := servicetest.Mail(svc.SMTPAddr(), in.Address, fmt.Sprint("m", i), "x"); err != nil {
				t.Fatal(err)
			}
		}
	}
	id, _ := createInboxA(t, base, `{"domain_id":1}`)
	if code, _ := servicetest.Call(t, "DELETE", base+"/inboxes/"+tokens[0]+"/", ""); code != 204 {
		t.Fatalf("delete inbox: %d", code)
	}
	list := servicetest.Messages(t, base, tokens[1])
	if code, _ := servicetest.Call(t, "DELETE", base+"/inboxes/"+tokens[1]+"/messages/"+list[0].ID+"/", ""); code != 204 {
		t.Fatalf("delete message: %d", code)
	}
	// Live: inboxes 2 and 3 and the family A one; messages 1 + 2.
	const wantInboxes, wantMessages = 3, 3

	// Held: a long-poll and an event stream; open: an SMTP connection.
	heldCtx, endHeld := context.WithCancel(context.Background())
	defer endHeld()
	poll, _ := http.NewRequestWithContext(heldCtx, "GET", base+"/inboxes/"+tokens[2]+"/latest/?wait=30&after="+servicetest.Messages(t, base, tokens[2])[0].ID, nil)
	go func() {
		if resp, err := servicetest.Client.Do(poll); err == nil {
			resp.Body.Close()
		}
	}()
	req, _ := http.NewRequestWithContext(heldCtx, "GET", base+"/api/inboxes/"+id+"/events/", nil)
	resp, err := servicetest.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	conn, err := smtp.Dial(svc.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	var body string
	eventually.True(t, "gauges of held requests, connections and counts", func() bool {
		body = servicetest.Scrape(t, base)
		held, _ := servicetest.Metric(body, "tempmail_http_held_requests")
		conns, _ := servicetest.Metric(body, "tempmail_smtp_connections")
		inboxes, _ := servicetest.Metric(body, "tempmail_inboxes_live")
		messages, _ := servicetest.Metric(body, "tempmail_messages_stored")
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
		v, ok := servicetest.Metric(body, m.name, m.labels...)
		if !ok || v < m.min {
			t.Errorf("%s%v = %v (present %v), want at least %v", m.name, m.labels, v, ok, m.min)
		}
	}
	// Sane: the SMTP and event-to-view times of a quiet test are far below
	// a second on average, and a held request is not a slow one.
	for _, h := range []string{"tempmail_smtp_data_duration_seconds", "tempmail_projection_apply_delay_seconds"} {
		sum, _ := servicetest.Metric(body, h+"_sum")
		n, _ := servicetest.Metric(body, h+"_count")
		if sum/n > 1 {
			t.Errorf("%s: mean %.3fs", h, sum/n)
		}
	}
	if _, ok := servicetest.Metric(body, "tempmail_http_request_duration_seconds_count", `route="/api/inboxes/{id}/events"`); ok {
		t.Error("an event stream is timed as a request")
	}
	if v, _ := servicetest.Metric(body, "tempmail_nats_connected"); v != 1 {
		t.Errorf("tempmail_nats_connected %v", v)
	}
	// Every metric the dashboard graphs exists (under that name).
	dashboard, err := os.ReadFile("../deploy/grafana/tempmail.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Panels []json.RawMessage }
	if err := json.Unmarshal(dashboard, &d); err != nil || len(d.Panels) == 0 {
		t.Fatalf("deploy/grafana/tempmail.json: %v", err)
	}
	if err := servicetest.Mail(svc.SMTPAddr(), "nobody@tempmail.test", "x", "x"); err == nil {
		t.Fatal("mail to nobody accepted")
	}
	body = servicetest.Scrape(t, base)
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
	eventually.True(t, "held and connections back to 0", func() bool {
		body = servicetest.Scrape(t, base)
		held, _ := servicetest.Metric(body, "tempmail_http_held_requests")
		conns, _ := servicetest.Metric(body, "tempmail_smtp_connections")
		return held == 0 && conns == 0
	})

	// The counts are the service's, not the process's: a restart goes on
	// from them, and a rebuild counts the same.
	counted := func(base, when string) {
		t.Helper()
		body := servicetest.Scrape(t, base)
		inboxes, ok1 := servicetest.Metric(body, "tempmail_inboxes_live")
		messages, ok2 := servicetest.Metric(body, "tempmail_messages_stored")
		if !ok1 || !ok2 || inboxes != wantInboxes || messages != wantMessages {
			t.Errorf("%s: %v inboxes and %v messages, want %d and %d", when, inboxes, messages, wantInboxes, wantMessages)
		}
	}
	servicetest.Stop(svc)
	svc = servicetest.Start(t, cfg)
	counted(servicetest.URL(svc), "after a restart")
	servicetest.Stop(svc)
	if _, err := service.Rebuild(t.Context(), cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	counted(servicetest.URL(servicetest.Start(t, cfg)), "after a rebuild")
}

// TestMetricsAndHealth: /metrics counts requests and mail as they come;
// /healthz says ok, and stopping once the service stops.
func TestMetricsAndHealth(t *testing.T) {
	t.Parallel()
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	in := servicetest.CreateInbox(t, base)
	servicetest.Send(t, svc.SMTPAddr(), "s@example.com", in.Address, "Subject: counted\r\n\r\nx\r\n")
	if err := servicetest.TrySend(svc.SMTPAddr(), "s@example.com", "nobody@tempmail.test", "Subject: x\r\n\r\nx\r\n"); err == nil {
		t.Fatal("mail to an unknown inbox was accepted")
	}
	servicetest.Call(t, "GET", base+"/inboxes/nope/messages/", "")
	code, body := servicetest.Call(t, "GET", base+"/metrics", "")
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
	if code, _ := servicetest.Call(t, "GET", base+"/healthz", ""); code != 200 {
		t.Errorf("healthz while running: %d", code)
	}
	svc.API.Stopping()
	if code, body := servicetest.Call(t, "GET", base+"/healthz", ""); code != 503 || !strings.Contains(string(body), `"stopping"`) {
		t.Errorf("healthz while stopping: %d %s", code, body)
	}
}

// TestGeneratedTokenIsLoggedOnce: the API token the first start generates
// is logged in one line, also when the answer to storing it is lost and
// the step is tried again (the retry finds its own token stored), and not
// by a second process that finds it there.
func TestGeneratedTokenIsLoggedOnce(t *testing.T) {
	t.Parallel()
	proxy := servicetest.ExternalNATS(t)
	proxy.DropAnswers(func(subject string) bool { return subject == "$KV.SECRETS.api-token" }, 1)
	start := func(dir string) (string, string) {
		t.Helper()
		cfg := servicetest.Config(t)
		cfg.DataDir, cfg.NATSURL = dir, proxy.URL()
		var out bytes.Buffer
		svc := servicetest.StartWith(t, cfg, service.Options{Logger: logs.New(&out, "text", slog.LevelInfo)})
		servicetest.Stop(svc)
		return svc.Config.APIToken, out.String()
	}
	tok, log := start(t.TempDir())
	if proxy.Dropped() != 1 {
		t.Fatalf("the answer to storing the token was not dropped (%d)", proxy.Dropped())
	}
	if n := strings.Count(log, "generated an API token"); n != 1 || strings.Count(log, tok) != 1 {
		t.Errorf("the token is in %d lines, the generated line there %d times; want 1:\n%s", strings.Count(log, tok), n, log)
	}
	again, log := start(t.TempDir())
	if again != tok || strings.Contains(log, tok) {
		t.Errorf("a second process: token %q (want %q), its log:\n%s", again, tok, log)
	}
}

// TestSingleNodeStartAndStopLogNoError: a single node's first start, mail,
// a stop, a second start on the same data and a stop log nothing at ERROR
// and nothing of the embedded server's at WARN.
func TestSingleNodeStartAndStopLogNoError(t *testing.T) {
	t.Parallel()
	cfg := servicetest.Config(t)
	var out bytes.Buffer
	log := logs.New(&out, "text", slog.LevelInfo)
	for round := range 2 {
		svc, err := servicetest.Try(t, cfg, service.Options{Logger: log})
		if err != nil {
			t.Fatalf("start %d: %v", round+1, err)
		}
		base := servicetest.URL(svc)
		in := servicetest.CreateInbox(t, base)
		if err := servicetest.Mail(svc.SMTPAddr(), in.Address, "logged", "hello"); err != nil {
			t.Fatal(err)
		}
		if code, _ := servicetest.Call(t, "GET", base+"/inboxes/"+in.Token+"/latest/?wait=10", ""); code != 200 {
			t.Fatalf("latest: %d", code)
		}
		servicetest.Stop(svc)
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "level=ERROR") || strings.Contains(l, "level=WARN") && strings.Contains(l, "component=nats") {
			t.Errorf("logged: %s", l)
		}
	}
}
