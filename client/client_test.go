package client

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The client against a running service is tested in cmd/tempmail
// (cli_test.go, mcp_test.go), which starts one; these are its pure parts.

func TestHoldFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		left, limit, want time.Duration
	}{
		{0, maxHold, 0},
		{-time.Second, maxHold, 0},
		{time.Millisecond, maxHold, time.Second},
		{1500 * time.Millisecond, maxHold, 2 * time.Second},
		{2 * time.Second, maxHold, 2 * time.Second},
		{59*time.Second + time.Millisecond, maxHold, 60 * time.Second},
		{90 * time.Second, maxHold, 60 * time.Second},
		{10 * time.Minute, time.Second, time.Second},
	} {
		t.Run(c.left.String(), func(t *testing.T) {
			t.Parallel()
			if got := holdFor(c.left, c.limit); got != c.want {
				t.Errorf("holdFor(%v, %v) = %v, want %v", c.left, c.limit, got, c.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want string
	}{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"https://mail.example.com/tempmail/", "https://mail.example.com/tempmail"},
		{" http://localhost:8080/ ", "http://localhost:8080"},
		{"127.0.0.1:8080", ""},
		{"ftp://example.com", ""},
		{"http://", ""},
		{"http://u:p@example.com", ""},
		{"http://example.com/?x=1", ""},
	} {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			got, err := New(c.in)
			switch {
			case c.want == "" && err == nil:
				t.Errorf("New(%q) = %q, want an error", c.in, got.Server)
			case c.want != "" && (err != nil || got.Server != c.want):
				t.Errorf("New(%q) = %v, %v; want %q", c.in, got, err, c.want)
			}
		})
	}
}

func TestErrorOf(t *testing.T) {
	t.Parallel()
	resp := func(status int, retryAfter string) *http.Response {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	for _, c := range []struct {
		name    string
		resp    *http.Response
		body    string
		notYet  bool
		message string
		retry   time.Duration
	}{
		{"no code yet", resp(404, ""), `{"error":"No code found"}`, true, "", 0},
		{"no link yet", resp(404, ""), `{"error":"No link"}`, true, "", 0},
		{"no message yet", resp(404, ""), `{"error":"No messages"}`, true, "", 0},
		{"no such inbox", resp(404, ""), `{"error":"Inbox not found"}`, false, "Inbox not found", 0},
		{"busy", resp(503, "1"), `{"error":"too many requests are being held open; try again shortly"}`, false,
			"too many requests are being held open; try again shortly", time.Second},
		{"a proxy's page", resp(502, ""), "<html>\n<body>Bad\tGateway\x1b[31m</body></html>", false,
			"<html> <body>Bad Gateway [31m</body></html>", 0},
		{"nothing said", resp(500, "soon"), "", false, "Internal Server Error", 0},
		{"a long page", resp(502, ""), strings.Repeat("x", 1000), false, strings.Repeat("x", 200) + "…", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := errorOf(c.resp, []byte(c.body))
			if c.notYet {
				if !errors.Is(err, ErrNotYet) {
					t.Errorf("%v, want ErrNotYet", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Message != c.message || e.Status != c.resp.StatusCode || e.RetryAfter != c.retry {
				t.Errorf("%#v, want %q with Retry-After %v", err, c.message, c.retry)
			}
		})
	}
}
