package mcphttp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
)

// TestInProcessCallsCarryTheCaller: a tool's call of the API is served as
// if the MCP request's caller had sent it: its address, X-Forwarded-For and
// X-Read-Key, and nothing else of its request.
func TestInProcessCallsCarryTheCaller(t *testing.T) {
	t.Parallel()
	seen := make(chan *http.Request, 1)
	router := chi.NewRouter()
	router.Get("/inboxes/{token}/otp", func(w http.ResponseWriter, r *http.Request) {
		seen <- r
		family.WriteJSON(w, http.StatusOK, map[string]string{"otp": "123456"})
	})
	caller := httptest.NewRequest("POST", "/mcp", nil)
	caller.RemoteAddr = "192.0.2.7:4242"
	caller.Header.Set("X-Forwarded-For", "198.51.100.1, 203.0.113.9")
	caller.Header.Set("X-Read-Key", "k")
	caller.Header.Set("Authorization", "Token secret")
	client := &http.Client{Transport: inProcess{s: router, caller: caller}}
	resp, err := client.Get(inProcessBase + "/inboxes/T/otp?wait=3")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var r *http.Request
	select {
	case r = <-seen:
	default:
		t.Fatalf("the request was not served: %d", resp.StatusCode)
	}
	if resp.StatusCode != 200 || r.RemoteAddr != "192.0.2.7:4242" || r.Header.Get("X-Forwarded-For") != "198.51.100.1, 203.0.113.9" ||
		r.Header.Get("X-Read-Key") != "k" || r.Header.Get("Authorization") != "" || r.URL.Query().Get("wait") != "3" {
		t.Errorf("served %d as %s %v from %s", resp.StatusCode, r.URL, r.Header, r.RemoteAddr)
	}
}
