package servicetest

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/backend/backendtest"
	"tempmail/events"
	"tempmail/service"
)

// What tests say to a running service, as its users do: HTTP requests,
// family C inboxes, mail over SMTP (Send), and what /metrics and /readyz
// show.

// Client bounds every request, so that a hang fails its test with a
// message instead of stalling the run until the global timeout.
var Client = &http.Client{Timeout: 90 * time.Second}

// Call makes a request with a JSON body (when body is not empty) and
// headers (name, value, ...), and returns its status and body.
func Call(t testing.TB, method, url, body string, headers ...string) (int, []byte) {
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
	resp, err := Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// Inbox is a family C inbox as POST /inboxes/ answers it.
type Inbox struct {
	Token     string `json:"token"`
	Address   string `json:"address"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
}

// CreateInbox makes a family C inbox through the service at base.
func CreateInbox(t testing.TB, base string) Inbox {
	t.Helper()
	code, body := Call(t, "POST", base+"/inboxes/", "{}")
	if code != http.StatusCreated {
		t.Fatalf("POST /inboxes/: %d %s", code, body)
	}
	var in Inbox
	if err := json.Unmarshal(body, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// Summary is a message as family C lists it.
type Summary struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	IsRead  bool   `json:"is_read"`
	To      string `json:"to"`
}

// Messages lists every message of a family C inbox, page by page, newest
// first.
func Messages(t testing.TB, base, token string) []Summary {
	t.Helper()
	var all []Summary
	for {
		code, body := Call(t, "GET", fmt.Sprintf("%s/inboxes/%s/messages/?limit=200&offset=%d", base, token, len(all)), "")
		if code != http.StatusOK {
			t.Fatalf("GET messages: %d %s", code, body)
		}
		var page []Summary
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		all = append(all, page...)
		if len(page) < 200 {
			return all
		}
	}
}

// Deliver stores a small message for the inbox token names through the
// event store, as ingest does, and waits until the views have applied it
// (backendtest.Deliver).
func Deliver(t testing.TB, svc *service.Service, token, subject string) events.Ack {
	t.Helper()
	return backendtest.Deliver(t, svc.Backend, token, subject)
}

// Send delivers raw, a whole message, to to through the SMTP server at
// addr with from as the envelope's sender, as any mail server would; a
// refusal fails the test. It is how a test that needs mail delivered
// sends it (tests of the SMTP conversation itself speak it). Lines of raw
// may end in LF: they go as CRLF. It is backendtest.Send.
func Send(t testing.TB, addr, from, to, raw string) {
	t.Helper()
	backendtest.Send(t, addr, from, to, raw)
}

// TrySend is Send that returns the server's refusal instead of failing
// the test: for a test that expects one, or that sends from a goroutine
// of its own, or until a server is back.
func TrySend(addr, from, to, raw string) error { return backendtest.TrySend(addr, from, to, raw) }

// Mail sends (TrySend) a plain message from s@example.com to to through
// the SMTP server at addr.
func Mail(addr, to, subject, body string) error { return backendtest.Mail(addr, to, subject, body) }

// Scrape returns what /metrics of the service at base shows.
func Scrape(t testing.TB, base string) string {
	t.Helper()
	code, b := Call(t, "GET", base+"/metrics", "")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	return string(b)
}

// Metric finds a sample in Prometheus text: the first line of the metric
// whose labels include all of labels (name="value" each).
func Metric(body, name string, labels ...string) (float64, bool) {
	for line := range strings.SplitSeq(body, "\n") {
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

// Health is what /readyz and /healthz answer.
type Health struct {
	Status   string   `json:"status"`
	Failing  []string `json:"failing"`
	Warnings []string `json:"warnings"`
}

// Readiness asks /readyz of the service at base.
func Readiness(t testing.TB, base string) (int, Health) {
	t.Helper()
	code, body := Call(t, "GET", base+"/readyz", "")
	var h Health
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("/readyz body %q: %v", body, err)
	}
	return code, h
}

// FreeAddrs returns n distinct loopback addresses that were free a moment
// ago: all are held open until every one is chosen, so that no two
// coincide. The ports lie below the kernel's range of ephemeral ports
// when there is room there: a process given one may stop and start on it
// again, and in between an outgoing connection could take an ephemeral
// port as its own (even a peer's connection to that very port, connected
// to itself), which the process could then not listen on.
func FreeAddrs(t testing.TB, n int) []string {
	t.Helper()
	lo, hi := belowEphemeral()
	var addrs []string
	for tries := 0; len(addrs) < n; tries++ {
		port := 0 // the kernel's choice, once 100 tried are in use
		if hi > lo && tries < 100 {
			port = lo + rand.IntN(hi-lo)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			if port != 0 {
				continue // in use: another
			}
			t.Fatal(err)
		}
		defer l.Close()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs
}

// belowEphemeral returns the ports [lo, hi) FreeAddrs chooses from: those
// from 20000 up to the first ephemeral port, or none (hi <= lo) where
// that leaves too few.
func belowEphemeral() (lo, hi int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return 0, 0
	}
	first, err := strconv.Atoi(fields[0])
	if err != nil || first < 21000 {
		return 0, 0
	}
	return 20000, first
}

// FreeAddr is one of FreeAddrs.
func FreeAddr(t testing.TB) string { return FreeAddrs(t, 1)[0] }
