package main

import (
	"bufio"
	"encoding/json"
	"net"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
)

// --hostname names the service in its greeting, its Received header and
// as the authserv-id; --auth-checks with --dns-resolver checks mail
// against that server, and the results show through the API.
func TestServiceChecksMailAsItsFlagsSay(t *testing.T) {
	dns := authtest.StartDNS(t)
	dns.TXT("sender.test", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject")
	key := authtest.NewKey(t, "sender.test", "sel")
	key.Publish(dns)
	cfg := testConfig(t.TempDir())
	cfg.AuthChecks, cfg.DNSResolver, cfg.Hostname = true, dns.Addr, "mx.service.test"
	svc, base := startServiceWith(t, cfg)
	in := createTokenInbox(t, base)

	c, err := net.DialTimeout("tcp", svc.SMTP.Addr(), 10*time.Second)
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
	if err := smtp.SendMail(svc.SMTP.Addr(), nil, "bounce@sender.test", []string{in.Address}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	code, body := call(t, "GET", base+"/inboxes/"+in.Token+"/latest/?wait=10", "")
	var m struct {
		ID             string           `json:"id"`
		Authentication *mailauth.Result `json:"authentication"`
	}
	if err := json.Unmarshal(body, &m); err != nil || code != 200 {
		t.Fatalf("latest: %d %s", code, body)
	}
	if a := m.Authentication; a == nil || a.SPF.Result != "pass" || len(a.DKIM) != 1 || a.DKIM[0].Result != "pass" || a.DMARC.Result != "pass" {
		t.Errorf("authentication %s", body)
	}
	_, raw := call(t, "GET", base+"/inboxes/"+in.Token+"/messages/"+m.ID+"/raw/", "")
	if !strings.Contains(string(raw), "\tby mx.service.test (tempmail) with UTF8SMTP id ") ||
		!strings.Contains(string(raw), "\r\nAuthentication-Results: mx.service.test;\r\n\tspf=pass smtp.mailfrom=sender.test;") {
		t.Errorf("raw:\n%s", raw)
	}
}
