package ingest_test

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"tempmail/backend/backendtest"
	"tempmail/config"
	"tempmail/projections"
)

// TestBytesPerClientBoundTheCopies: what one client makes the service
// store is its messages' sizes times their recipients, within
// --smtp-bytes-per-client (issue 29: one 20 MiB DATA to 100 catch-all
// addresses wrote 2 GiB). Here the budget is 3 MiB an hour and the
// messages about 400 KB:
//   - ten recipients without SIZE=: each RCPT is taken, and the message
//     after its data is refused, 451 4.3.1, with nothing of it stored;
//   - with SIZE=400000 the eighth recipient is refused at RCPT, 452 4.3.1,
//     and the message goes to the seven before it;
//   - then the budget cannot hold the next 400 KB: 451 again, while a
//     small message fits, and another client's mail is its own.
//
// Before, all were taken.
func TestBytesPerClientBoundTheCopies(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.SMTPBytesPerClient = config.ByteRate{Bytes: 3 << 20, Per: time.Hour}
	cfg.SMTPMaxConnsPerIP = 0
	svc := backendtest.Start(t, cfg)
	var boxes []*projections.Inbox
	for i := range 10 {
		boxes = append(boxes, inbox(t, svc, fmt.Sprintf("copy%d@tempmail.test", i)))
	}
	body := strings.Repeat(strings.Repeat("z", 998)+"\r\n", 400)

	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO relay.example")
	c.cmd(250, "MAIL FROM:<s@example.com>")
	for _, in := range boxes {
		c.cmd(250, "RCPT TO:<"+in.Address+">")
	}
	c.cmd(354, "DATA")
	c.write("Subject: ten copies\r\n\r\n" + body + ".\r\n")
	if code, reply := c.reply(); code != 451 || !strings.HasPrefix(reply, "4.3.1") {
		t.Fatalf("ten copies of 400 KB within 3 MiB: %d %s, want 451 4.3.1", code, reply)
	}

	c.cmd(250, "MAIL FROM:<s@example.com> SIZE=400000")
	for i, in := range boxes[:8] {
		want := 250
		if i == 7 {
			want = 452
		}
		if reply := c.cmd(want, "RCPT TO:<"+in.Address+">"); want == 452 && !strings.HasPrefix(reply, "4.3.1") {
			t.Errorf("the eighth recipient: %s, want 452 4.3.1", reply)
		}
	}
	c.cmd(354, "DATA")
	c.cmd(250, "Subject: seven copies\r\n\r\n"+body+".")

	c.cmd(250, "MAIL FROM:<s@example.com>")
	c.cmd(250, "RCPT TO:<"+boxes[9].Address+">")
	c.cmd(354, "DATA")
	c.write("Subject: one more\r\n\r\n" + body + ".\r\n")
	if code, reply := c.reply(); code != 451 || !strings.HasPrefix(reply, "4.3.1") {
		t.Errorf("400 KB more with 340 KB left: %d %s, want 451 4.3.1", code, reply)
	}
	c.cmd(250, "MAIL FROM:<s@example.com>")
	c.cmd(250, "RCPT TO:<"+boxes[9].Address+">")
	c.cmd(354, "DATA")
	c.cmd(250, "Subject: small\r\n\r\nstill fits\r\n.")

	for i, in := range boxes {
		want := map[bool]string{true: "seven copies"}[i < 7]
		if i == 9 {
			want = "small"
		}
		got := messages(t, svc, in.ID, min(len(want), 1))
		if len(got) == 1 && got[0].Subject != want {
			t.Errorf("%s holds %q, want %q", in.Address, got[0].Subject, want)
		}
	}

	// Another client (127.0.0.2, another address of the loopback) has a
	// budget of its own.
	other := dialFrom(t, "127.0.0.2", svc.SMTPAddr())
	other.cmd(250, "EHLO other.example")
	other.cmd(250, "MAIL FROM:<o@example.com> SIZE=400000")
	other.cmd(250, "RCPT TO:<"+boxes[8].Address+">")
	other.cmd(354, "DATA")
	other.cmd(250, "Subject: another client\r\n\r\n"+body+".")
	if got := messages(t, svc, boxes[8].ID, 1); got[0].Subject != "another client" {
		t.Errorf("%s holds %q", boxes[8].Address, got[0].Subject)
	}
}

// dialFrom is dial from a local address of the test's choosing.
func dialFrom(t *testing.T, local, addr string) *conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from %s: %v", local, err)
	}
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	t.Cleanup(func() { c.Close() })
	sc := &conn{t: t, c: c, r: bufio.NewReader(c)}
	if code, msg := sc.reply(); code != 220 {
		t.Fatalf("greeting %d %s", code, msg)
	}
	return sc
}
