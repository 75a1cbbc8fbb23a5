package api

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/fairshare"
)

func TestClientIsThePeerOrTheRightmostUntrustedForwardedAddress(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	long := strings.Repeat("10.0.0.1, ", 40) + "10.0.0.2"
	for _, c := range []struct {
		name, remote string
		forwarded    []string
		trusted      []netip.Prefix
		want         string
	}{
		{"no proxies: the peer", "192.0.2.1:5000", nil, nil, "192.0.2.1"},
		{"no proxies: the header is ignored", "192.0.2.1:5000", []string{"198.51.100.7"}, nil, "192.0.2.1"},
		{"an untrusted peer's header is ignored", "192.0.2.1:5000", []string{"198.51.100.7"}, proxies, "192.0.2.1"},
		{"a trusted proxy: the address it saw", "127.0.0.1:5000", []string{"198.51.100.7"}, proxies, "198.51.100.7"},
		{"what the client wrote itself is not believed", "127.0.0.1:5000", []string{"1.1.1.1, 8.8.8.8, 198.51.100.7"}, proxies, "198.51.100.7"},
		{"a chain of trusted proxies", "127.0.0.1:5000", []string{"8.8.8.8, 198.51.100.7, 10.1.2.3", "10.9.9.9"}, proxies, "198.51.100.7"},
		{"IPv6 through a trusted IPv6 proxy", "[fd00::5]:443", []string{"2001:db8:1:2:3:4:5:6"}, proxies, "2001:db8:1:2:3:4:5:6"},
		{"entries with ports", "127.0.0.1:5000", []string{"[2001:db8::9]:1234, 10.0.0.3:80"}, proxies, "2001:db8::9"},
		{"IPv4-mapped", "[::ffff:127.0.0.1]:5000", []string{"::ffff:198.51.100.7"}, proxies, "198.51.100.7"},
		{"no header behind a proxy: the proxy", "127.0.0.1:5000", nil, proxies, "127.0.0.1"},
		{"all trusted: the left-most", "127.0.0.1:5000", []string{"10.0.0.9, 10.0.0.8"}, proxies, "10.0.0.9"},
		{"garbage where the proxy wrote: the nearest proxy", "127.0.0.1:5000", []string{"198.51.100.7, not-an-address"}, proxies, "127.0.0.1"},
		{"an empty entry: the nearest proxy", "127.0.0.1:5000", []string{"198.51.100.7,,10.0.0.4"}, proxies, "10.0.0.4"},
		{"more hops than looked at: the last trusted one seen", "127.0.0.1:5000", []string{"198.51.100.7, " + long}, proxies, "10.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.remote
			for _, v := range c.forwarded {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientAddr(r, c.trusted); got.String() != c.want {
				t.Errorf("client %s, want %s", got, c.want)
			}
		})
	}
}

// TestFairSharesPerClient is issue 19's check, behind a trusted proxy:
// 5 creations a minute from one client, the 6th refused while another
// client's goes through; 10 held requests per client, the 11th refused
// while another client's is held; each refusal in its family's shape.
func TestFairSharesPerClient(t *testing.T) {
	t.Parallel()
	h := newHarness(t, allowPrivate, func(c *config.Config) {
		c.MaxWaiters, c.MaxWaitersPerClient = 50, 10
		c.CreateRatePerClient = config.Rate{N: 5, Per: time.Minute}
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	one, other := []string{"X-Forwarded-For", "203.0.113.7"}, []string{"X-Forwarded-For", "198.51.100.9"}
	var token string
	for i := range 5 {
		r := h.do("POST", "/inboxes/", "", one...)
		if r.Status != 201 {
			t.Fatalf("creation %d: %d %s", i+1, r.Status, r.Body)
		}
		token = r.JSON(t)["token"].(string)
	}
	tooMany := func(r response, shape string) {
		t.Helper()
		after, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if r.Status != http.StatusTooManyRequests || err != nil || after < 1 || after > 12 || !strings.Contains(string(r.Body), shape) {
			t.Errorf("beyond the share: %d, Retry-After %q, %s", r.Status, r.Header.Get("Retry-After"), r.Body)
		}
	}
	tooMany(h.do("POST", "/inboxes/", "", one...), `{"error":"too many inboxes and webhooks made from your address (at most 5 a minute); try again in`)
	tooMany(h.do("POST", "/api/create-temp-email/", "", one...), `{"error":"too many`)
	tooMany(h.do("POST", "/api/create-temp-email/", "", one...), `"success":false`)
	tooMany(h.do("POST", "/api/inboxes/create_inbox/", `{"domain_id":1}`, append(one, "Content-Type", jsonCT)...), `{"error":"too many`)
	tooMany(h.do("POST", "/inboxes/"+token+"/webhooks/", `{"url":"http://127.0.0.1:9/"}`, append(one, "Content-Type", jsonCT)...), `{"error":"too many`)
	tooMany(h.do("POST", "/api/webhooks/", `{"url":"http://127.0.0.1:9/"}`, append(one, "Content-Type", jsonCT, "Authorization", "Token "+testToken)...), `{"error":"too many`)
	// Unauthenticated, the operator's endpoint answers 401 first, and costs nothing.
	h.expect(h.do("POST", "/api/webhooks/", `{"url":"http://127.0.0.1:9/"}`, append(other, "Content-Type", jsonCT)...), 401, "")
	h.expect(h.do("POST", "/inboxes/", "", other...), 201, "")

	// Held requests: 10 streams of one client open, its 11th (or a
	// long-poll) is refused, another client's opens.
	var streams []*sse
	for range 10 {
		streams = append(streams, h.openStream("/inboxes/"+token+"/events/", "", one...))
	}
	tooMany(h.do("GET", "/inboxes/"+token+"/events/", "", one...), `{"error":"your address holds 10 requests open`)
	tooMany(h.do("GET", "/inboxes/"+token+"/latest/?wait=5", "", one...), `{"error":"your address holds 10 requests open`)
	h.openStream("/inboxes/"+token+"/events/", "", other...)
	// A place given back is the client's again.
	streams[0].close()
	eventually(t, "the closed stream's place given back", func() bool {
		h.api.waiters.mu.Lock()
		defer h.api.waiters.mu.Unlock()
		return h.api.waiters.byClient[fairshare.Key(netip.MustParseAddr("203.0.113.7"))] == 9
	})
	h.openStream("/inboxes/"+token+"/events/", "", one...)
}

// TestEventStreamEndsAtItsMaxAgeAndResumes: at --max-stream-age a stream
// ends with its last id and a retry, so EventSource resumes it with
// Last-Event-ID and misses nothing that came meanwhile.
func TestEventStreamEndsAtItsMaxAgeAndResumes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.MaxStreamAge = time.Second })
	token, address := h.tokenInbox()
	req, _ := http.NewRequest("GET", h.http.URL+"/inboxes/"+token+"/events/", nil)
	resp, err := h.clientVia(http.DefaultTransport, 0).Do(req)
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
	h.sendMail(address, "Subject: while away\r\n\r\nx\r\n")
	s := h.openStream("/inboxes/"+token+"/events/", last)
	if ev := s.next(); ev.Name != "message" || ev.Data["subject"] != "while away" {
		t.Errorf("resumed: %+v, want what came while away", ev)
	}
}
