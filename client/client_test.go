package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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
		{"family A's detail", resp(401, ""), `{"detail":"Invalid key: unknown, revoked or expired."}`, false,
			"Invalid key: unknown, revoked or expired.", 0},
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

// What a sender wrote is printed written out: escape sequences (ESC [,
// ESC ] ... BEL), C1 controls, bidirectional and invisible characters,
// and bytes that are not UTF-8; letters of any script stay.
func TestPrintable(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"482913":                                   "482913",
		"Grüße, 日本 — ok":                           "Grüße, 日本 — ok",
		"\x1b[2J\x1b]0;pwned\x07code":              `\x1b[2J\x1b]0;pwned\x07code`,
		"a\u009b31mred":                            `a\u009b31mred`,
		"https://x.example/\u202egpj.exe":          `https://x.example/\u202egpj.exe`,
		"pay\u200bpal\ufeff\u2066\u00ad":           `pay\u200bpal\ufeff\u2066\u00ad`,
		"tab\tnew\nline\x7f":                       `tab\x09new\x0aline\x7f`,
		"bad \xff byte":                            `bad \xff byte`,
		"tag \U000E0041 and selector \ufe0f\u3164": `tag \U000e0041 and selector \ufe0f\u3164`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// A JSON answer keeps its meaning (a reader decodes the same strings) and
// its layout, and no hidden character reaches the terminal as itself.
func TestPrintableJSON(t *testing.T) {
	t.Parallel()
	in := "{\"subject\":\"\x1b]52;c;cHduZWQ=\x07hi \u202efdp.exe \u0085 \\\"q\\\\\",\n \"s\": \"\U000E0041\xff\",\t\"n\":1}"
	got := PrintableJSON([]byte(in))
	want := "{\"subject\":\"\\u001b]52;c;cHduZWQ=\\u0007hi \\u202efdp.exe \\u0085 \\\"q\\\\\",\n \"s\": \"\\udb40\\udc41\\ufffd\",\t\"n\":1}"
	if string(got) != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	var a, b map[string]any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(in, "\xff", "\ufffd")), &b); err == nil && a["subject"] != b["subject"] {
		t.Errorf("the subject changed: %q, was %q", a["subject"], b["subject"])
	}
	for _, c := range string(got) {
		if c != '\n' && c != '\t' && hidden(c) {
			t.Errorf("%U is still in %q", c, got)
		}
	}
}

// The token (in the path) and the read key (a header, which Go sends on
// to any host) never go to another origin: a redirect there is not
// followed, and the error says why, without the URL that holds the token.
// A redirect within the service's origin is followed, with the key.
func TestRedirectsStayWithinTheOrigin(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write([]byte(`{"otp":"111111"}`))
	}))
	defer other.Close()
	keys := make(chan string, 4)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys <- r.Header.Get("X-Read-Key")
		switch {
		case strings.HasPrefix(r.URL.Path, "/moved/"):
			w.Write([]byte(`{"otp":"482913"}`))
		case strings.Contains(r.URL.Path, "/SAME/"):
			http.Redirect(w, r, "/moved"+r.URL.Path, http.StatusTemporaryRedirect)
		default:
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}
	}))
	defer svc.Close()
	c, err := New(svc.URL)
	if err != nil {
		t.Fatal(err)
	}
	c.ReadKey = "s3cret"
	_, err = c.OTP(context.Background(), "TOKEN", Query{}, 0)
	if err == nil || !strings.Contains(err.Error(), "redirected to another origin") || strings.Contains(err.Error(), "TOKEN") {
		t.Errorf("a redirect elsewhere: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other origin was asked %d times", n)
	}
	code, err := c.OTP(context.Background(), "SAME", Query{}, 0)
	if err != nil || code.Code != "482913" {
		t.Fatalf("a redirect within the origin: %v %v", code, err)
	}
	if k1, k2, k3 := <-keys, <-keys, <-keys; k1 != "s3cret" || k2 != "s3cret" || k3 != "s3cret" {
		t.Errorf("read keys %q %q %q", k1, k2, k3)
	}
}

// TestTheKeyIsSentAsBearerAndNeverShown: Key goes in Authorization: Bearer,
// and a server that echoes it in its error does not get it printed.
func TestTheKeyIsSentAsBearerAndNeverShown(t *testing.T) {
	t.Parallel()
	const key = "tm_abcdefghijklmnopqrstuvwxyz234567"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]string{"error": "no such key: " + r.Header.Get("Authorization")})
	}))
	defer srv.Close()
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c.Key = key
	_, err = c.CreateInbox(context.Background(), "", "")
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusUnauthorized || e.Message != "no such key: Bearer …" {
		t.Errorf("%#v, want 401 with the key written out", err)
	}
	if err := c.RevokeKey(context.Background(), "78efd21e-9b23-4437-b0cc-283b6694e950"); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("revoke: %v", err)
	}
}
