package main

import (
	"context"
	"net/smtp"
	"os/exec"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// Against an external NATS: several URLs (the first one dead), TLS with the
// server's CA, a credentials file; and the connection comes back when the
// server restarts.
func TestExternalNATSWithCredentialsTLSAndReconnect(t *testing.T) {
	nats := servicetest.SecureNATS(t)
	creds, ca := nats.Creds, nats.CA
	dead := "tls://" + freeAddr(t)
	_, base, smtpAddr := runServeSMTP(t, t.TempDir(), "--nats-url", dead+","+nats.URL(),
		"--nats-creds", creds, "--nats-tls-ca", ca, "--smtp-rate-per-ip", "0")
	in := createTokenInbox(t, base)
	if err := sendMail(smtpAddr, in.Address, "before the restart"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first message", func() bool { return len(listMessages(t, base, in.Token)) == 1 })

	nats.Stop()
	time.Sleep(2 * time.Second) // tempmail notices, and keeps trying
	nats.Start(t)

	eventually(t, "mail after the NATS restart", func() bool {
		return sendMail(smtpAddr, in.Address, "after the restart") == nil
	})
	eventually(t, "both messages", func() bool { return len(listMessages(t, base, in.Token)) == 2 })
	if code, _ := call(t, "POST", base+"/inboxes/", ""); code != 201 {
		t.Errorf("create an inbox after the NATS restart: %d", code)
	}

	// Without the credentials the server refuses, and tempmail says so.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "serve", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0",
		"--smtp-addr", "127.0.0.1:0", "--nats-url", nats.URL(), "--nats-tls-ca", ca).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(out), "Authorization Violation") {
		t.Errorf("without credentials: %v, %s", err, out)
	}
}

func sendMail(smtpAddr, to, subject string) error {
	msg := "From: s@example.com\r\nTo: " + to + "\r\nSubject: " + subject + "\r\n\r\nhello\r\n"
	return smtp.SendMail(smtpAddr, nil, "s@example.com", []string{to}, []byte(msg))
}
