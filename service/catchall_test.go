package service_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/smtp"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service/servicetest"
)

const catchAllToken = "catch-all-test-token-0123456789"

// get answers a GET with the API token (when token is true) as status and
// body.
func get(t *testing.T, url string, token bool) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token {
		req.Header.Set("Authorization", "Token "+catchAllToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// found is an inbox as GET /api/inboxes/?email= answers it.
type found struct {
	ID         string `json:"id"`
	Email      string `json:"email"`
	TTL        int64  `json:"ttl"`
	EmailCount int    `json:"email_count"`
	Token      string `json:"token"`
}

func lookup(t *testing.T, base, email string) []found {
	t.Helper()
	code, body := get(t, base+"/api/inboxes/?email="+email, true)
	if code != 200 {
		t.Fatalf("lookup %s: %d %s", email, code, body)
	}
	var out []found
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("lookup %s: %v in %s", email, err, body)
	}
	return out
}

// rcpt opens an SMTP transaction and says what RCPT TO answered for each
// address: nil, or the server's *textproto.Error.
func rcpt(t *testing.T, addr string, to ...string) []error {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Mail("sender@example.com"); err != nil {
		t.Fatal(err)
	}
	out := make([]error, len(to))
	for i, a := range to {
		out[i] = c.Rcpt(a)
	}
	return out
}

func replyCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// TestCatchAllDomainTakesMailToAnyAddress: on a catch-all domain the first
// message to an address makes its inbox (family A, an hour), which the
// operator finds by address with the API token and every family reads;
// reserved names and other domains' unknown addresses stay 550; a client
// makes only its share of inboxes, mail or HTTP.
func TestCatchAllDomainTakesMailToAnyAddress(t *testing.T) {
	t.Parallel()
	cfg := servicetest.Config(t)
	cfg.Domains = []string{"tempmail.test", "catch.test"}
	cfg.CatchAllDomains = []string{"catch.test"}
	cfg.APIToken = catchAllToken
	cfg.SMTPRatePerIP = 0
	cfg.CreateRatePerClient = config.Rate{N: 4, Per: time.Hour}
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)

	code, body := get(t, base+"/api/domains/", false)
	if code != 200 || !strings.Contains(string(body), `"name":"catch.test","is_active":true,"catch_all":true`) ||
		!strings.Contains(string(body), `"name":"tempmail.test","is_active":true,"catch_all":false`) {
		t.Errorf("domains: %d %s", code, body)
	}
	if got := lookup(t, base, "signup-7@catch.test"); len(got) != 0 {
		t.Errorf("before any mail: %+v", got)
	}

	msg := "From: shop@example.com\r\nTo: signup-7@catch.test\r\nSubject: Your code\r\n\r\nYour code is 424242.\r\n"
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", "Signup-7@Catch.test", msg)
	var in found
	eventually.True(t, "the inbox holds the message", func() bool {
		got := lookup(t, base, "SIGNUP-7@catch.test")
		if len(got) == 1 {
			in = got[0]
		}
		return len(got) == 1 && got[0].EmailCount == 1
	})
	if in.Email != "signup-7@catch.test" || in.TTL != 3600 || in.Token == "" {
		t.Errorf("the inbox made by mail: %+v", in)
	}
	// Plus-addressing holds as for any inbox: the same inbox, no new one.
	again := strings.Replace(msg, "Subject: Your code", "Subject: Welcome", 1)
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", "signup-7+again@catch.test", again)
	eventually.True(t, "the second message in the same inbox", func() bool {
		got := lookup(t, base, "signup-7@catch.test")
		return len(got) == 1 && got[0].ID == in.ID && got[0].EmailCount == 2
	})
	// Every family reads it.
	if code, body := get(t, base+"/inboxes/"+in.Token+"/otp/", false); code != 200 || !strings.Contains(string(body), `"424242"`) {
		t.Errorf("family C otp: %d %s", code, body)
	}
	// By address, only with the API token (or its own): anyone may guess
	// an address on a catch-all domain.
	if code, body := get(t, base+"/address/latest/?address=signup-7@catch.test", true); code != 200 || !strings.Contains(string(body), "Your code") {
		t.Errorf("latest by address: %d %s", code, body)
	}
	if code, body := get(t, base+"/address/latest/?address=signup-7@catch.test", false); code != 404 || strings.TrimSpace(string(body)) != `{"error":"Inbox not found"}` {
		t.Errorf("latest by address without the token: %d %s", code, body)
	}
	if code, body := get(t, base+"/api/inboxes/"+in.ID+"/emails/", true); code != 200 || !strings.Contains(string(body), "Your code") {
		t.Errorf("family A emails: %d %s", code, body)
	}

	// The lookup always takes the token, and bounds what it is given.
	for _, c := range []struct {
		query string
		token bool
		want  int
	}{
		{"?email=signup-7@catch.test", false, 401},
		{"", true, 400},
		{"?email=", true, 400},
		{"?email=no-at-sign", true, 400},
		{"?email=" + strings.Repeat("a", 65) + "@catch.test", true, 400},
		{"?email=a@" + strings.Repeat("b", 254), true, 400},
	} {
		if code, body := get(t, base+"/api/inboxes/"+c.query, c.token); code != c.want {
			t.Errorf("lookup %.40q (token %v): %d %s, want %d", c.query, c.token, code, body, c.want)
		}
	}

	// Reserved names and names outside the alphabet are unknown; so is an
	// unknown address on a domain that is not catch-all.
	for i, err := range rcpt(t, svc.SMTPAddr(), "postmaster@catch.test", "a..b@catch.test", "nobody@tempmail.test") {
		if replyCode(err) != 550 {
			t.Errorf("recipient %d: %v, want 550", i, err)
		}
	}
	if got := lookup(t, base, "postmaster@catch.test"); len(got) != 0 {
		t.Errorf("a reserved name got an inbox: %+v", got)
	}

	// The share: 4 creations an hour; one went to signup-7. An inbox made
	// over HTTP counts too, and beyond the share a new address waits (450),
	// while known ones are still taken.
	req, _ := http.NewRequest("POST", base+"/inboxes/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create over HTTP: %v %v", resp, err)
	}
	resp.Body.Close()
	answers := rcpt(t, svc.SMTPAddr(), "new-1@catch.test", "new-2@catch.test", "new-3@catch.test", "signup-7@catch.test")
	if answers[0] != nil || answers[1] != nil || replyCode(answers[2]) != 450 || answers[3] != nil {
		t.Errorf("beyond the share: %v", answers)
	}
	if !strings.Contains(answers[2].Error(), "4.7.1") {
		t.Errorf("the refusal %q has no enhanced code 4.7.1", answers[2])
	}
}
