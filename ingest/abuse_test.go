package ingest_test

import (
	"net"
	"runtime"
	"strings"
	"testing"

	"tempmail/backend/backendtest"
	"tempmail/eventually"
)

// TestSIZEReservesNothing: 20 clients announce 26 MB messages (SIZE=),
// reach DATA and send nothing. Memory is spent on bytes received, not on a
// client's word: the server's heap grows by far less than one such message.
// Not parallel: it measures the process's heap, which other tests' services
// would grow.
func TestSIZEReservesNothing(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxMessageBytes = 26_000_000
	cfg.SMTPMaxConnsPerIP = 0
	svc := backendtest.Start(t, cfg)
	inbox(t, svc, "probe@tempmail.test")
	runtime.GC()
	base := heapBytes()
	for range 20 {
		c := dial(t, svc.SMTPAddr())
		c.cmd(250, "EHLO client.example")
		c.cmd(250, "MAIL FROM:<s@example.com> SIZE=26000000")
		c.cmd(250, "RCPT TO:<probe@tempmail.test>")
		c.cmd(354, "DATA")
	}
	runtime.GC()
	grown := int64(heapBytes()) - int64(base)
	t.Logf("heap grew by %d KiB for 20 idle DATA transactions announcing 26 MB", grown>>10)
	if grown > 64<<20 {
		t.Errorf("20 clients announcing 26 MB grew the heap by %d MiB, want under 64 MiB", grown>>20)
	}
}

// TestConnectionsInAllAreCapped: beyond --smtp-max-conns a new connection
// is greeted with 421 4.7.0 and closed, whatever its address; a closed one
// frees its place.
func TestConnectionsInAllAreCapped(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.SMTPMaxConns, cfg.SMTPMaxConnsPerIP = 3, 0
	svc := backendtest.Start(t, cfg)
	var open []*conn
	for range 3 {
		open = append(open, dial(t, svc.SMTPAddr()))
	}
	over, err := net.Dial("tcp", svc.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	buf := make([]byte, 200)
	n, _ := over.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "421 4.7.0 Too many connections") {
		t.Errorf("a connection beyond the cap was greeted with %q, want 421 4.7.0", buf[:n])
	}
	open[0].cmd(221, "QUIT")
	eventually.True(t, "the server to see the QUIT's close", func() bool { return smtpConnections(t, svc) < 3 })
	dial(t, svc.SMTPAddr()).cmd(250, "EHLO again")
}

// TestInflightBytesAreCapped: while sessions hold as many message bytes
// as --smtp-max-inflight-bytes allows, another message is answered
// 452 4.3.1 (its sender retries later) and nothing of it is kept; once the
// bytes are released, mail flows again.
func TestInflightBytesAreCapped(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.SMTPMaxInflightBytes, cfg.SMTPMaxConnsPerIP = 1<<20, 0
	svc := backendtest.Start(t, cfg)
	in := inbox(t, svc, "busy@tempmail.test")
	// One session holds the budget: it has sent 600 KiB and not yet ended
	// its data (its buffer, doubling, holds 1 MiB).
	hog := dial(t, svc.SMTPAddr())
	hog.cmd(250, "EHLO hog.example")
	hog.cmd(250, "MAIL FROM:<s@example.com>")
	hog.cmd(250, "RCPT TO:<busy@tempmail.test>")
	hog.cmd(354, "DATA")
	hog.write("Subject: hog\r\n\r\n" + strings.Repeat(strings.Repeat("x", 1022)+"\r\n", 600))
	eventually.True(t, "the server to hold the hog's 600 KiB", func() bool { return svc.SMTP.InflightBytes() >= 600<<10 })

	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO client.example")
	c.cmd(250, "MAIL FROM:<s@example.com>")
	c.cmd(250, "RCPT TO:<busy@tempmail.test>")
	c.cmd(354, "DATA")
	c.write("Subject: refused\r\n\r\n" + strings.Repeat(strings.Repeat("y", 1022)+"\r\n", 300) + ".\r\n")
	if code, reply := c.reply(); code != 452 || !strings.HasPrefix(reply, "4.3.1") {
		t.Errorf("a message beyond the in-flight budget: %d %s, want 452 4.3.1", code, reply)
	}

	hog.write(".\r\n")
	if code, reply := hog.reply(); code != 250 {
		t.Fatalf("the hog's message: %d %s", code, reply)
	}
	if used := svc.SMTP.InflightBytes(); used != 0 {
		t.Errorf("%d bytes still held after every message ended", used)
	}
	c.cmd(250, "MAIL FROM:<s@example.com>")
	c.cmd(250, "RCPT TO:<busy@tempmail.test>")
	c.cmd(354, "DATA")
	c.cmd(250, "Subject: accepted\r\n\r\nnow it fits\r\n.")
	got := messages(t, svc, in.ID, 2)
	for _, m := range got {
		if m.Subject == "refused" {
			t.Error("the refused message was stored")
		}
	}
}
