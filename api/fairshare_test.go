package api_test

import (
	"bufio"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/service/apitest"
)

// TestFairSharesPerClient is issue 19's check, behind a trusted proxy:
// 5 creations a minute from one client, the 6th refused while another
// client's goes through; 10 held requests per client, the 11th refused
// while another client's is held; each refusal in its family's shape.
func TestFairSharesPerClient(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, allowPrivate, func(c *config.Config) {
		c.MaxWaiters, c.MaxWaitersPerClient = 50, 10
		c.CreateRatePerClient = config.Rate{N: 5, Per: time.Minute}
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	one, other := []string{"X-Forwarded-For", "203.0.113.7"}, []string{"X-Forwarded-For", "198.51.100.9"}
	var token string
	for i := range 5 {
		r := h.Do("POST", "/inboxes/", "", one...)
		if r.Status != 201 {
			t.Fatalf("creation %d: %d %s", i+1, r.Status, r.Body)
		}
		token = r.JSON(t)["token"].(string)
	}
	tooMany := func(r apitest.Response, shape string) {
		t.Helper()
		after, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if r.Status != http.StatusTooManyRequests || err != nil || after < 1 || after > 12 || !strings.Contains(string(r.Body), shape) {
			t.Errorf("beyond the share: %d, Retry-After %q, %s", r.Status, r.Header.Get("Retry-After"), r.Body)
		}
	}
	tooMany(h.Do("POST", "/inboxes/", "", one...), `{"error":"too many inboxes and webhooks made from your address (at most 5 a minute); try again in`)
	tooMany(h.Do("POST", "/api/create-temp-email/", "", one...), `{"error":"too many`)
	tooMany(h.Do("POST", "/api/create-temp-email/", "", one...), `"success":false`)
	tooMany(h.Do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, append(one, "Content-Type", apitest.JSONType)...), `{"error":"too many`)
	tooMany(h.Do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1:9/"}`, append(one, "Content-Type", apitest.JSONType)...), `{"error":"too many`)
	tooMany(h.Do("POST", "/api/webhooks/", `{"url":"http://127.0.0.1:9/"}`, append(one, "Content-Type", apitest.JSONType, "Authorization", "Token "+apitest.TestToken)...), `{"error":"too many`)
	// Unauthenticated, the operator's endpoint answers 401 first, and costs nothing.
	h.Expect(h.Do("POST", "/api/webhooks/", `{"url":"http://127.0.0.1:9/"}`, append(other, "Content-Type", apitest.JSONType)...), 401, "")
	h.Expect(h.Do("POST", "/inboxes/", "", other...), 201, "")

	// Held requests: 10 streams of one client open, its 11th (or a
	// long-poll) is refused, another client's opens.
	var streams []*apitest.Stream
	for range 10 {
		streams = append(streams, h.OpenStream("/inboxes/"+token+"/events/", "", one...))
	}
	tooMany(h.Do("GET", "/inboxes/"+token+"/events/", "", one...), `{"error":"your address holds 10 requests open`)
	tooMany(h.Do("GET", "/inboxes/"+token+"/latest/?wait=5", "", one...), `{"error":"your address holds 10 requests open`)
	h.OpenStream("/inboxes/"+token+"/events/", "", other...)
	// A place given back is the client's again: once the server has seen
	// the stream closed (11 held, the first client's 10 and the other's
	// one, become 10), the first client opens another.
	h.WaitHeld(11)
	streams[0].Close()
	h.WaitHeld(10)
	h.OpenStream("/inboxes/"+token+"/events/", "", one...)
}

// TestEventStreamEndsAtItsMaxAgeAndResumes: at --max-stream-age a stream
// ends with its last id and a retry, so EventSource resumes it with
// Last-Event-ID and misses nothing that came meanwhile.
func TestEventStreamEndsAtItsMaxAgeAndResumes(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.MaxStreamAge = time.Second })
	token, address := h.TokenInbox()
	req, _ := http.NewRequest("GET", h.URL+"/inboxes/"+token+"/events/", nil)
	resp, err := h.ClientVia(http.DefaultTransport, 0).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	// The stream ended by itself: the last block is its id and a retry.
	n := len(lines)
	if n < 3 || !strings.HasPrefix(lines[n-3], "id: ") || !strings.HasPrefix(lines[n-2], "retry: ") || lines[n-1] != "" {
		t.Fatalf("the stream ended with %q", lines)
	}
	last := strings.TrimPrefix(lines[n-3], "id: ")
	h.SendMail(address, "Subject: while away\r\n\r\nx\r\n")
	s := h.OpenStream("/inboxes/"+token+"/events/", last)
	if ev := s.Next(); ev.Name != "message" || ev.Data["subject"] != "while away" {
		t.Errorf("resumed: %+v, want what came while away", ev)
	}
}
