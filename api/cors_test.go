package api_test

import (
	"net/http"
	"strings"
	"testing"

	"tempmail/config"
	"tempmail/service/apitest"
)

// preflight sends what a browser sends before a cross-origin request that
// carries headers of its own.
func preflight(h *apitest.Harness, path, origin, method string) apitest.Response {
	h.T.Helper()
	return h.Do("OPTIONS", path, "", "Origin", origin, "Access-Control-Request-Method", method,
		"Access-Control-Request-Headers", "authorization,x-read-key")
}

func accessControl(r apitest.Response) []string {
	var out []string
	for k := range r.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			out = append(out, k)
		}
	}
	return out
}

func TestCORSAnswersPreflightsOfAllowedOriginsOnly(t *testing.T) {
	t.Parallel()
	const app = "https://app.example.com"
	h := apitest.New(t, func(c *config.Config) { c.CORSOrigins = []string{app, "http://localhost:3000"} })
	token, _ := h.TokenInbox()

	for _, p := range []struct{ path, method string }{
		{"/inboxes/", "POST"}, {"/inboxes", "POST"}, {"/inboxes/" + token + "/messages/", "GET"},
		{"/inboxes/" + token + "/", "DELETE"}, {"/api/inboxes/x/events/", "GET"}, {"/address/latest/", "GET"},
	} {
		t.Run(p.method+" "+p.path, func(t *testing.T) {
			t.Parallel()
			r := preflight(h.As(t), p.path, app, p.method)
			if r.Status != http.StatusNoContent {
				t.Fatalf("preflight: %d %s", r.Status, r.Body)
			}
			for name, want := range map[string]string{
				"Access-Control-Allow-Origin":  app,
				"Access-Control-Allow-Methods": "GET, POST, DELETE",
				"Access-Control-Allow-Headers": "Authorization, Content-Type, X-Read-Key, Last-Event-ID",
				"Access-Control-Max-Age":       "3600",
			} {
				if got := r.Header.Get(name); got != want {
					t.Errorf("%s %q, want %q", name, got, want)
				}
			}
			if !strings.Contains(strings.Join(r.Header.Values("Vary"), ","), "Origin") {
				t.Errorf("Vary %q lacks Origin", r.Header.Values("Vary"))
			}
		})
	}

	// Another origin: the preflight is answered, with nothing that lets its
	// page go on.
	r := preflight(h, "/inboxes/", "https://evil.example", "POST")
	if r.Status != http.StatusNoContent || len(accessControl(r)) != 0 {
		t.Errorf("preflight from another origin: %d %v", r.Status, accessControl(r))
	}
	// An origin differing only in scheme or port is another origin.
	for _, o := range []string{"http://app.example.com", "https://app.example.com:8443", "null"} {
		if r := preflight(h, "/inboxes/", o, "POST"); len(accessControl(r)) != 0 {
			t.Errorf("preflight from %s: %v", o, accessControl(r))
		}
	}
	// Unknown paths and methods a path does not serve are answered as ever.
	h.Expect(preflight(h, "/nowhere/", app, "GET"), 404, "")
	h.Expect(preflight(h, "/inboxes/", app, "PUT"), 405, "")

	// The request itself: readable by the allowed origin, with its count.
	r = h.Do("GET", "/inboxes/"+token+"/messages/", "", "Origin", app)
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != app ||
		r.Header.Get("Access-Control-Expose-Headers") != "X-Total-Count" || r.Header.Get("X-Total-Count") != "0" {
		t.Errorf("GET from %s: %d %v", app, r.Status, r.Header)
	}
	r = h.Do("GET", "/inboxes/"+token+"/messages/", "", "Origin", "https://evil.example")
	if r.Status != 200 || len(accessControl(r)) != 0 || !strings.Contains(strings.Join(r.Header.Values("Vary"), ","), "Origin") {
		t.Errorf("GET from another origin: %d %v", r.Status, r.Header)
	}
	// Errors are readable too, or a page could not tell 401 from a network failure.
	r = h.Do("GET", "/inboxes/nope/messages/", "", "Origin", "http://localhost:3000")
	if r.Status != 404 || r.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Errorf("404 from an allowed origin: %d %v", r.Status, r.Header)
	}
}

func TestCORSWildcardAllowsEveryOrigin(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.CORSOrigins = []string{"*"} })
	r := preflight(h, "/api/inboxes/create_inbox/", "https://anywhere.example", "POST")
	if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != "*" ||
		r.Header.Get("Access-Control-Allow-Headers") == "" {
		t.Errorf("preflight: %d %v", r.Status, r.Header)
	}
	r = h.Do("POST", "/inboxes/", "", "Origin", "http://127.0.0.1:5173")
	if r.Status != 201 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("POST: %d %v", r.Status, r.Header)
	}
	// Without an Origin (curl, servers), nothing changes.
	if r := h.Do("GET", "/api/domains/", ""); len(accessControl(r)) != 0 {
		t.Errorf("request without Origin got %v", accessControl(r))
	}
}

func TestWithoutCORSOriginsThereAreNoCORSHeaders(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	// OPTIONS is answered as for any client (204 and Allow), with nothing
	// that lets a page go on.
	r := preflight(h, "/inboxes/", "https://app.example.com", "POST")
	if r.Status != 204 || len(accessControl(r)) != 0 {
		t.Errorf("preflight: %d %v", r.Status, accessControl(r))
	}
	if r := h.Do("GET", "/api/domains/", "", "Origin", "https://app.example.com"); len(accessControl(r)) != 0 || r.Header.Get("Vary") != "" {
		t.Errorf("GET: %v", r.Header)
	}
}
