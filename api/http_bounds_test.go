package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/service/apitest"
)

// TestEmptyPostIsAnEmptyObject: a POST with no body counts as {} whatever
// its Content-Type, as curl sends it with -X POST or an empty -d.
func TestEmptyPostIsAnEmptyObject(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for _, ct := range []string{"", "application/json", "application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"} {
		t.Run("Content-Type "+ct, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			headers := []string{}
			if ct != "" {
				headers = append(headers, "Content-Type", ct)
			}
			if r := h.Do("POST", "/inboxes/", "", headers...); r.Status != http.StatusCreated {
				t.Errorf("POST /inboxes/ empty: %d %s", r.Status, r.Body)
			}
			if r := h.Do("POST", "/api/create-temp-email/", "", headers...); r.Status != http.StatusCreated {
				t.Errorf("POST /api/create-temp-email/ empty: %d %s", r.Status, r.Body)
			}
		})
	}
	// A body that is there must be JSON.
	h.Expect(h.Do("POST", "/inboxes/", "a=1", "Content-Type", "application/x-www-form-urlencoded"), http.StatusUnsupportedMediaType, "")
}

// TestBodiesAreBoundedAsTheyAreRead: a body over 1 MiB is refused with 413
// in the family's shape, also when it comes without a length (chunked).
func TestBodiesAreBoundedAsTheyAreRead(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	big := `{"email_name":"` + strings.Repeat("a", 1<<20) + `"}`
	h.Expect(h.Do("POST", "/api/create-temp-email/", big, "Content-Type", "application/json"), http.StatusRequestEntityTooLarge, "")
	req, _ := http.NewRequest("POST", h.URL+"/inboxes/", io.MultiReader(strings.NewReader(`{"x":"`), strings.NewReader(strings.Repeat("b", 2<<20))))
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1 // chunked: no length announced
	resp, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"error"`) {
		t.Errorf("chunked 2 MiB body: %d %s", resp.StatusCode, body)
	}
}

// TestHeldRequestsOutliveTheServersTimeouts: a long-poll is held past the
// server's read and write timeouts (which bound ordinary requests) and
// answered when its wait ends.
func TestHeldRequestsOutliveTheServersTimeouts(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it reaches into the service
	token, _ := h.TokenInbox()
	// The service's own listener bounds requests by a minute; this server
	// in front of the same API bounds them by half a second, so that a
	// wait of 2 s outlives its bounds.
	srv := httptest.NewUnstartedServer(h.Service.API)
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = 500*time.Millisecond, 500*time.Millisecond
	srv.Start()
	defer srv.Close()
	start := time.Now()
	resp, err := h.Client.Get(srv.URL + "/inboxes/" + token + "/latest/?wait=2")
	if err != nil {
		t.Fatalf("a held request past the server's timeouts: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), "No messages") || time.Since(start) < 2*time.Second {
		t.Errorf("held for %v: %d %s; want the 404 after the 2 s wait", time.Since(start), resp.StatusCode, body)
	}
}

// TestHeldRequestsAreCapped: beyond --max-waiters, a request that would be
// held is answered 503 with Retry-After at once; a request without wait is
// served as usual.
func TestHeldRequestsAreCapped(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.MaxWaiters = 2 })
	token, address := h.TokenInbox()
	var held []<-chan apitest.Response
	for range 2 {
		held = append(held, h.Start("GET", "/inboxes/"+token+"/latest/?wait=30", ""))
	}
	h.WaitHeld(2)
	r := h.Do("GET", "/inboxes/"+token+"/latest/?wait=30", "")
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("a third held request: %d %s (Retry-After %q), want 503 with Retry-After", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	h.Expect(h.Do("GET", "/inboxes/"+token+"/latest/", ""), 404, `{"error":"No messages"}`)
	h.SendMail(address, "Subject: release\r\n\r\nx\r\n")
	for _, answer := range held {
		if r := <-answer; r.Status != 200 {
			t.Errorf("a held request: %d %s", r.Status, r.Body)
		}
	}
	// Answered, and given back: a held request's place is released
	// before its answer is complete.
	if n := h.Held(); n != 0 {
		t.Errorf("%d requests still counted as held", n)
	}
}
