package service_test

import (
	"bufio"
	"encoding/json"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/mailauth/authtest"
	"tempmail/mailbox"
	"tempmail/service/servicetest"
)

// What the service answers its users, whatever its command line.

// TestCreatedInboxIsReadableByTheVeryNextRequest: a family C inbox made
// is read at once, with an address and a token of its own and a day's
// lifetime.
func TestCreatedInboxIsReadableByTheVeryNextRequest(t *testing.T) {
	t.Parallel()
	base := servicetest.URL(servicetest.Start(t, servicetest.Config(t)))
	seen := map[string]bool{}
	for range 30 {
		in := servicetest.CreateInbox(t, base)
		if list := servicetest.Messages(t, base, in.Token); len(list) != 0 {
			t.Fatalf("new inbox lists %d messages", len(list))
		}
		if !regexp.MustCompile(`^[a-z0-9]{10}@tempmail\.test$`).MatchString(in.Address) || len(in.Token) < 22 {
			t.Errorf("inbox %+v: want a 10-character address on tempmail.test and a long token", in)
		}
		created, err1 := time.Parse(time.RFC3339Nano, in.CreatedAt)
		expires, err2 := time.Parse(time.RFC3339Nano, in.ExpiresAt)
		if err1 != nil || err2 != nil || expires.Sub(created) != 24*time.Hour || !strings.HasSuffix(in.CreatedAt, "Z") {
			t.Errorf("timestamps %q %q: want UTC and a 24h lifetime", in.CreatedAt, in.ExpiresAt)
		}
		if seen[in.Address] || seen[in.Token] {
			t.Fatalf("address or token handed out twice: %+v", in)
		}
		seen[in.Address], seen[in.Token] = true, true
	}
	if code, body := servicetest.Call(t, "GET", base+"/inboxes/not-a-token/messages", ""); code != 404 || !strings.Contains(string(body), `"Inbox not found"`) {
		t.Errorf("unknown token: %d %s", code, body)
	}
	if code, body := servicetest.Call(t, "GET", base+"/healthz", ""); code != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Errorf("healthz: %d %s", code, body)
	}
}

// TestDomainIDsStayStableWhenTheConfigurationChanges: a domain keeps its
// id whatever the order of --domains; one left out is deactivated and
// forgotten (its name free), and one configured again is a new domain,
// with an id of its own.
func TestDomainIDsStayStableWhenTheConfigurationChanges(t *testing.T) {
	t.Parallel()
	cfg := servicetest.Config(t)
	ids := func(domains ...string) map[string]string {
		cfg.Domains = domains
		svc := servicetest.Start(t, cfg)
		defer servicetest.Stop(svc)
		list, err := svc.Views.PublicDomains(t.Context(), true)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, d := range list {
			out[d.Name] = strconv.Itoa(d.ID)
		}
		return out
	}
	check := func(got map[string]string, want string) {
		t.Helper()
		var parts []string
		for _, name := range []string{"a.test", "b.test", "c.test"} {
			if v, ok := got[name]; ok {
				parts = append(parts, name+"="+v)
			}
		}
		if s := strings.Join(parts, " "); s != want {
			t.Errorf("domains %s, want %s", s, want)
		}
	}
	check(ids("a.test", "b.test"), "a.test=1 b.test=2")
	check(ids("b.test", "a.test"), "a.test=1 b.test=2")
	check(ids("b.test"), "b.test=2")
	again := ids("c.test", "a.test", "b.test")
	if again["b.test"] != "2" || again["a.test"] == "" || again["a.test"] == "1" || again["c.test"] == "" ||
		again["c.test"] == again["a.test"] {
		t.Errorf("configured again: %v, want b.test=2 and a.test and c.test new ids of their own", again)
	}
}

// TestFortyFiveConnectionsFromOneAddressAreGreeted: a relay in front opens
// as many connections as its concurrency and its connection cache allow
// (Postfix: 20 per destination and more cached), all from one address;
// under the defaults every one is greeted, where a 421 would make it put
// the whole destination off.
func TestFortyFiveConnectionsFromOneAddressAreGreeted(t *testing.T) {
	t.Parallel()
	svc := servicetest.Start(t, servicetest.Config(t))
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	buf := make([]byte, 512)
	for i := range 45 {
		c, err := net.Dial("tcp", svc.SMTPAddr())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		n, err := c.Read(buf)
		if err != nil || !strings.HasPrefix(string(buf[:n]), "220 ") {
			t.Fatalf("connection %d greeted with %q (%v), want 220", i+1, buf[:n], err)
		}
	}
}

// --hostname names the service in its greeting, its Received header and
// as the authserv-id; --auth-checks with --dns-resolver checks mail
// against that server, and the results show through the API.
func TestServiceChecksMailAsItsFlagsSay(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	dns.TXT("sender.test", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject")
	key := authtest.NewKey(t, "sender.test", "sel")
	key.Publish(dns)
	cfg := servicetest.Config(t)
	cfg.AuthChecks, cfg.DNSResolver, cfg.Hostname = true, dns.Addr, "mx.service.test"
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	in := servicetest.CreateInbox(t, base)

	c, err := net.DialTimeout("tcp", svc.SMTPAddr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	greeting, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if !strings.HasPrefix(greeting, "220 mx.service.test ") {
		t.Errorf("greeting %q", greeting)
	}

	msg := key.Sign(t, "From: shop@sender.test\r\nTo: "+in.Address+"\r\nSubject: checked\r\nDate: Sat, 21 Nov 2026 19:00:00 +0000\r\n"+
		"Message-ID: <svc@sender.test>\r\n\r\nYour code is 424242.\r\n")
	servicetest.Send(t, svc.SMTPAddr(), "bounce@sender.test", in.Address, msg)
	code, body := servicetest.Call(t, "GET", base+"/inboxes/"+in.Token+"/latest/?wait=10", "")
	var m struct {
		ID             string        `json:"id"`
		Authentication *mailbox.Auth `json:"authentication"`
	}
	if err := json.Unmarshal(body, &m); err != nil || code != 200 {
		t.Fatalf("latest: %d %s", code, body)
	}
	if a := m.Authentication; a == nil || a.SPF.Result != "pass" || len(a.DKIM) != 1 || a.DKIM[0].Result != "pass" || a.DMARC.Result != "pass" {
		t.Errorf("authentication %s", body)
	}
	_, raw := servicetest.Call(t, "GET", base+"/inboxes/"+in.Token+"/messages/"+m.ID+"/raw/", "")
	if !strings.Contains(string(raw), "\tby mx.service.test (tempmail) with UTF8SMTP id ") ||
		!strings.Contains(string(raw), "\r\nAuthentication-Results: mx.service.test;\r\n\tspf=pass smtp.mailfrom=sender.test;") {
		t.Errorf("raw:\n%s", raw)
	}
}
