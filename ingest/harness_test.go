package ingest_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/broker/natstest"
	"tempmail/config"
	"tempmail/eventually"
	"tempmail/mailbox"
	"tempmail/projections"
)

// The tests of ingest run the back end (backendtest), as `tempmail serve`
// assembles it under its HTTP side, and talk to its SMTP listener; they
// make inboxes through its commands, as the API does, and read what was
// stored through its views, and what it counted through its metrics. What
// a test changes of ingest is a configuration field (the SMTP limits, the
// largest message) or, for what no flag sets (a command.Mail's Timeout,
// its sender checks), backend.Options.Mail.

// hostname is the service's host name in the tests: their greeting,
// Received and Authentication-Results fields name it.
const hostname = "mx.tempmail.test"

// testConfig is backendtest's configuration with the tests' host name.
func testConfig(t *testing.T) config.Config {
	cfg := backendtest.Config(t)
	cfg.Hostname = hostname
	return cfg
}

// inbox creates a live family C inbox for addr through the back end's
// commands, as the API does (backendtest.CreateInbox); it is in the views
// when inbox returns.
func inbox(t *testing.T, svc *backend.Backend, addr string) *projections.Inbox {
	t.Helper()
	return backendtest.CreateInbox(t, svc, addr)
}

// messages waits until an inbox lists n messages (the views apply them
// just after the 250) and returns them whole, newest first. It fails the
// test if the inbox holds more.
func messages(t *testing.T, svc *backend.Backend, inboxID string, n int) []*mailbox.Message {
	t.Helper()
	var in *projections.Inbox
	eventually.Nil(t, fmt.Sprintf("%d messages in inbox %s", n, inboxID), func() (err error) {
		if in, err = svc.Views.Inbox(t.Context(), inboxID); err != nil {
			return err
		}
		if in.Count < n {
			return fmt.Errorf("%s holds %d", in.Address, in.Count)
		}
		return nil
	})
	list, err := svc.Views.Messages(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Fatalf("%s holds %d messages, want %d", in.Address, len(list), n)
	}
	var out []*mailbox.Message
	for _, s := range list {
		m, _, err := svc.Views.Message(t.Context(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// raw returns a stored message's bytes as the API serves them.
func raw(t *testing.T, svc *backend.Backend, m *mailbox.Message) []byte {
	t.Helper()
	if m.RawObject == "" {
		return m.Raw
	}
	r, err := svc.Store.OpenRaw(t.Context(), m.ContentRef(), m.RawObject)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("raw of %s: %v", m.ID, err)
	}
	return b
}

// smtpConnections reads the gauge of open SMTP connections from the
// metrics, which an operator's scraper reads on /metrics.
func smtpConnections(t *testing.T, svc *backend.Backend) int {
	t.Helper()
	n, ok := backendtest.Metric(t, svc, "tempmail_smtp_connections")
	if !ok {
		t.Fatal("the metrics have no tempmail_smtp_connections")
	}
	return int(n)
}

// withTLS gives cfg a self-signed certificate for 127.0.0.1, so that the
// service offers STARTTLS, and returns the pool a client trusts it with.
func withTLS(t *testing.T, cfg *config.Config) *x509.CertPool {
	t.Helper()
	cfg.TLSCert, cfg.TLSKey = natstest.WriteCert(t, t.TempDir())
	pem, err := os.ReadFile(cfg.TLSCert)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", cfg.TLSCert)
	}
	return pool
}

// clientTLS is what a client says in STARTTLS to a service given withTLS's
// certificate.
func clientTLS(pool *x509.CertPool) *tls.Config {
	return &tls.Config{ServerName: "127.0.0.1", RootCAs: pool}
}

// conn is a raw SMTP conversation, for what net/smtp cannot say (pipelining,
// BDAT, exact replies).
type conn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

// dial opens a conversation with the SMTP server at addr and reads its
// greeting, which must be 220.
func dial(t *testing.T, addr string) *conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	t.Cleanup(func() { c.Close() })
	sc := &conn{t: t, c: c, r: bufio.NewReader(c)}
	if code, msg := sc.reply(); code != 220 {
		t.Fatalf("greeting %d %s", code, msg)
	}
	return sc
}

// write sends s as it is.
func (c *conn) write(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.c, s); err != nil {
		c.t.Fatal(err)
	}
}

// reply reads one (possibly multi-line) reply.
func (c *conn) reply() (int, string) {
	c.t.Helper()
	var lines []string
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading reply: %v (so far %q)", err, lines)
		}
		line = strings.TrimRight(line, "\r\n")
		if len(line) < 4 {
			c.t.Fatalf("short reply line %q", line)
		}
		lines = append(lines, line[4:])
		if line[3] == ' ' {
			code, _ := strconv.Atoi(line[:3])
			return code, strings.Join(lines, "\n")
		}
	}
}

// cmd sends one command and expects a reply code.
func (c *conn) cmd(want int, line string) string {
	c.t.Helper()
	c.write(line + "\r\n")
	code, msg := c.reply()
	if code != want {
		c.t.Fatalf("%q: %d %s, want %d", line, code, msg, want)
	}
	return msg
}

// startTLS says STARTTLS and goes on over TLS.
func (c *conn) startTLS(cfg *tls.Config) {
	c.t.Helper()
	c.cmd(220, "STARTTLS")
	tc := tls.Client(c.c, cfg)
	c.c, c.r = tc, bufio.NewReader(tc)
}

// msg is a message from one address to others.
func msg(from, to, subject, body string) string {
	return fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: Sat, 21 Nov 2026 19:00:00 +0000\r\nMessage-ID: <%s@test>\r\n\r\n%s\r\n",
		from, to, subject, uuid.NewString(), body)
}
