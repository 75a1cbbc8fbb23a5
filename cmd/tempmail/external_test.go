package main

import (
	"context"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// Against an external NATS: several URLs (the first one dead), TLS with the
// server's CA, a credentials file; and the connection comes back when the
// server restarts.
func TestExternalNATSWithCredentialsTLSAndReconnect(t *testing.T) {
	t.Parallel()
	nats := servicetest.SecureNATS(t)
	creds, ca := nats.Creds, nats.CA
	dead := "tls://" + freeAddr(t)
	_, base, smtpAddr := runServeSMTP(t, t.TempDir(), "--nats-url", dead+","+nats.URL(),
		"--nats-creds", creds, "--nats-tls-ca", ca, "--smtp-rate-per-ip", "0")
	in := createTokenInbox(t, base)
	if err := servicetest.Mail(smtpAddr, in.Address, "before the restart", "hello"); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, "the first message", func() bool { return len(listMessages(t, base, in.Token)) == 1 })

	nats.Stop()
	eventually.True(t, "tempmail notices NATS is gone", func() bool {
		code, h := servicetest.Readiness(t, base)
		return code == http.StatusServiceUnavailable && slices.Contains(h.Failing, "nats connection")
	})
	nats.Start(t) // it keeps trying, and connects again

	eventually.True(t, "mail after the NATS restart", func() bool {
		return servicetest.Mail(smtpAddr, in.Address, "after the restart", "hello") == nil
	})
	eventually.True(t, "both messages", func() bool { return len(listMessages(t, base, in.Token)) == 2 })
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
