package ingest_test

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"tempmail/backend/backendtest"
	"tempmail/eventually"
	"tempmail/mail/mailtest"
)

func TestMultipartMessageIsParsedAndStored(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	in := inbox(t, svc, "box@tempmail.test")
	backendtest.Send(t, svc.SMTPAddr(), "bounce@example.com", "Box@TempMail.test", mailtest.Multipart)
	m := messages(t, svc, in.ID, 1)[0]
	check := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	check("from", m.From, "joerg@example.com")
	check("from_name", m.FromName, "Jörg Müller")
	check("subject", m.Subject, "Überprüfung: 📧 code 424242")
	check("text", m.Text, "Hallöchen, your code is 424242.")
	check("html", m.HTML, "<p>Hall&ouml;chen, your code is <b>424242</b>.</p>")
	check("to", strings.Join(m.To, ","), "box@tempmail.test,other@example.org")
	check("cc", strings.Join(m.Cc, ","), "cc@example.org")
	check("message-id", m.HeaderMessageID, "<multi-1@example.com>")
	check("mail from", m.MailFrom, "bounce@example.com")
	check("date", m.Date.Format(time.RFC3339), "2026-11-21T18:00:00Z")
	check("header Subject", m.Headers["Subject"], "Überprüfung: 📧 code 424242")
	check("header Message-ID", m.Headers["Message-ID"], "<multi-1@example.com>")
	if len(m.Attachments) != 1 {
		t.Fatalf("attachments %+v", m.Attachments)
	}
	a := m.Attachments[0]
	pdf, _ := base64.StdEncoding.DecodeString("JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoK")
	if a.Filename != "résumé.pdf" || a.ContentType != "application/pdf" || a.Size != int64(len(pdf)) || a.Part == "" || a.ID != m.ID+"-1" {
		t.Errorf("attachment %+v", a)
	}
	raw := string(raw(t, svc, m))
	// net/smtp asks for SMTPUTF8 whenever it is offered: UTF8SMTP.
	if !strings.HasPrefix(raw, "Received: from ") || !strings.Contains(raw, "by mx.tempmail.test (tempmail) with UTF8SMTP id ") ||
		!strings.Contains(raw, "for <box@tempmail.test>") || !strings.HasSuffix(raw, mailtest.Multipart) {
		t.Errorf("raw is not the message with our Received header on top:\n%.400s", raw)
	}
	if m.Size != int64(len(raw)) {
		t.Errorf("size %d, raw is %d bytes", m.Size, len(raw))
	}
}

func TestMalformedMessagesAreAcceptedOverSMTP(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	in := inbox(t, svc, "junk@tempmail.test")
	n := 0
	for name, raw := range mailtest.Malformed() {
		if strings.Contains(raw, "\n.") || raw == "" {
			continue // dot-stuffing is the client's job; net/smtp does it, but keep the seeds literal
		}
		if err := backendtest.TrySend(svc.SMTPAddr(), "s@example.com", in.Address, raw); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		n++
	}
	stored := messages(t, svc, in.ID, n)
	for _, m := range stored {
		if len(raw(t, svc, m)) == 0 {
			t.Errorf("message %q kept no raw bytes", m.Subject)
		}
	}
}

func TestSMTPUTF8AddressAnd8BitBody(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	in := inbox(t, svc, "δοκιμή@tempmail.test")
	c := dial(t, svc.SMTPAddr())
	ehlo := c.cmd(250, "EHLO client.example")
	for _, ext := range []string{"PIPELINING", "8BITMIME", "SMTPUTF8", "ENHANCEDSTATUSCODES", "CHUNKING", "SIZE 26214400"} {
		if !strings.Contains(ehlo, ext) {
			t.Errorf("EHLO does not advertise %s:\n%s", ext, ehlo)
		}
	}
	if strings.Contains(ehlo, "STARTTLS") || strings.Contains(ehlo, "AUTH") {
		t.Errorf("EHLO advertises STARTTLS or AUTH without a certificate:\n%s", ehlo)
	}
	c.cmd(250, "MAIL FROM:<χρήστης@example.gr> BODY=8BITMIME SMTPUTF8")
	c.cmd(250, "RCPT TO:<ΔΟΚΙΜΉ@tempmail.test>")
	c.cmd(354, "DATA")
	c.cmd(250, "From: Χρήστης <χρήστης@example.gr>\r\nTo: δοκιμή@tempmail.test\r\nSubject: Γειά σου\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nΚαλημέρα κόσμε\r\n.")
	c.cmd(221, "QUIT")
	m := messages(t, svc, in.ID, 1)[0]
	if m.Subject != "Γειά σου" || m.Text != "Καλημέρα κόσμε\n" || m.From != "χρήστης@example.gr" || m.FromName != "Χρήστης" {
		t.Errorf("got subject %q text %q from %q %q", m.Subject, m.Text, m.From, m.FromName)
	}
}

func TestRecipientPolicy(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	a, b := inbox(t, svc, "a@tempmail.test"), inbox(t, svc, "b@tempmail.test")
	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO client.example")
	c.cmd(250, "MAIL FROM:<s@example.com>")
	c.cmd(250, "RCPT TO:<a@tempmail.test>")
	if reply := c.cmd(550, "RCPT TO:<nobody@tempmail.test>"); !strings.HasPrefix(reply, "5.1.1") {
		t.Errorf("unknown mailbox: %q, want 5.1.1", reply)
	}
	if reply := c.cmd(550, "RCPT TO:<someone@gmail.com>"); !strings.HasPrefix(reply, "5.7.1") {
		t.Errorf("domain not served: %q, want 5.7.1", reply)
	}
	c.cmd(501, "RCPT TO:<no-domain>") // syntax, refused by go-smtp itself
	c.cmd(250, "RCPT TO:<B@tempmail.test>")
	c.cmd(250, "RCPT TO:<a@tempmail.test>") // twice: one copy
	c.cmd(354, "DATA")
	c.cmd(250, msg("s@example.com", "a@tempmail.test, b@tempmail.test", "to two", "hello both")+".")
	for _, in := range []struct {
		id, addr string
	}{{a.ID, a.Address}, {b.ID, b.Address}} {
		got := messages(t, svc, in.id, 1)
		if got[0].Subject != "to two" || got[0].Address != in.addr {
			t.Errorf("%s got %+v", in.addr, got[0])
		}
	}
	if messages(t, svc, a.ID, 1)[0].ID == messages(t, svc, b.ID, 1)[0].ID {
		t.Error("both recipients share one message id")
	}
}

func TestAtMost100Recipients(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO client.example")
	c.cmd(250, "MAIL FROM:<s@example.com>")
	var inboxes []string
	for i := range 100 {
		in := inbox(t, svc, fmt.Sprintf("r%d@tempmail.test", i))
		inboxes = append(inboxes, in.ID)
		c.cmd(250, "RCPT TO:<"+in.Address+">")
	}
	extra := inbox(t, svc, "r100@tempmail.test")
	if reply := c.cmd(452, "RCPT TO:<r100@tempmail.test>"); !strings.HasPrefix(reply, "4.5.3") {
		t.Errorf("101st recipient: %q, want 4.5.3", reply)
	}
	c.cmd(354, "DATA")
	c.cmd(250, msg("s@example.com", "many@tempmail.test", "to a hundred", "hi")+".")
	for _, id := range []string{inboxes[0], inboxes[57], inboxes[99]} {
		if got := messages(t, svc, id, 1); got[0].Subject != "to a hundred" {
			t.Errorf("inbox %s: %+v", id, got[0])
		}
	}
	if n := len(messages(t, svc, extra.ID, 0)); n != 0 {
		t.Errorf("the refused 101st recipient got %d messages", n)
	}
}

func TestOversizedMessagesAreRefused(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.MaxMessageBytes = 64 << 10
	svc := backendtest.Start(t, cfg)
	in := inbox(t, svc, "big@tempmail.test")
	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO client.example")
	if reply := c.cmd(552, "MAIL FROM:<s@example.com> SIZE=100000"); !strings.HasPrefix(reply, "5.3.4") {
		t.Errorf("declared size: %q", reply)
	}
	c.cmd(250, "MAIL FROM:<s@example.com>")
	c.cmd(250, "RCPT TO:<big@tempmail.test>")
	c.cmd(354, "DATA")
	body := strings.Repeat(strings.Repeat("x", 99)+"\r\n", 700)
	c.write(msg("s@example.com", "big@tempmail.test", "too big", body) + ".\r\n")
	if code, reply := c.reply(); code != 552 || !strings.HasPrefix(reply, "5.3.4") {
		t.Errorf("oversized DATA: %d %s", code, reply)
	}
	// The session goes on, and a message within the limit is taken.
	c.cmd(250, "MAIL FROM:<s@example.com>")
	c.cmd(250, "RCPT TO:<big@tempmail.test>")
	c.cmd(354, "DATA")
	c.cmd(250, msg("s@example.com", "big@tempmail.test", "fits", "small")+".")
	if got := messages(t, svc, in.ID, 1); got[0].Subject != "fits" {
		t.Errorf("got %q", got[0].Subject)
	}
}

func TestSTARTTLS(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	pool := withTLS(t, &cfg)
	svc := backendtest.Start(t, cfg)
	in := inbox(t, svc, "tls@tempmail.test")
	cl, err := smtp.Dial(svc.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if ok, _ := cl.Extension("STARTTLS"); !ok {
		t.Fatal("STARTTLS not advertised with a certificate configured")
	}
	if err := cl.StartTLS(clientTLS(pool)); err != nil {
		t.Fatal(err)
	}
	if state, ok := cl.TLSConnectionState(); !ok || !state.HandshakeComplete {
		t.Fatal("no TLS after STARTTLS")
	}
	send(t, cl, "s@example.com", "tls@tempmail.test", msg("s@example.com", "tls@tempmail.test", "secret", "over TLS"))
	m := messages(t, svc, in.ID, 1)[0]
	if b := raw(t, svc, m); m.Subject != "secret" || !strings.Contains(string(b), "with UTF8SMTPS id") {
		t.Errorf("subject %q, raw %.200s", m.Subject, b)
	}
}

// The Received field names the protocol: UTF8SMTP when MAIL FROM asked
// for SMTPUTF8 (RFC 6531 section 3.7.3), with an S after STARTTLS (RFC
// 3848).
func TestReceivedNamesTheProtocol(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	pool := withTLS(t, &cfg)
	svc := backendtest.Start(t, cfg)
	for _, c := range []struct {
		want  string
		tls   bool
		param string
	}{
		{"ESMTP", false, ""},
		{"UTF8SMTP", false, " SMTPUTF8"},
		{"ESMTPS", true, ""},
		{"UTF8SMTPS", true, " SMTPUTF8"},
	} {
		t.Run(c.want, func(t *testing.T) {
			t.Parallel()
			addr := strings.ToLower(c.want) + "@tempmail.test"
			in := inbox(t, svc, addr)
			conn := dial(t, svc.SMTPAddr())
			conn.cmd(250, "EHLO client.example")
			if c.tls {
				conn.startTLS(clientTLS(pool))
				conn.cmd(250, "EHLO client.example")
			}
			// A first transaction with SMTPUTF8, then the one looked at:
			// the word is each transaction's own.
			conn.cmd(250, "MAIL FROM:<s@example.com> SMTPUTF8")
			conn.cmd(250, "RSET")
			conn.cmd(250, "MAIL FROM:<s@example.com>"+c.param)
			conn.cmd(250, "RCPT TO:<"+addr+">")
			conn.cmd(354, "DATA")
			conn.cmd(250, msg("s@example.com", addr, c.want, "body")+".")
			if b := raw(t, svc, messages(t, svc, in.ID, 1)[0]); !strings.Contains(string(b), "(tempmail) with "+c.want+" id ") {
				t.Errorf("want with %s:\n%.300s", c.want, b)
			}
		})
	}
}

// send has a transaction on cl, which must succeed.
func send(t *testing.T, cl *smtp.Client, from, to, body string) {
	t.Helper()
	if err := cl.Mail(from); err != nil {
		t.Fatal(err)
	}
	if err := cl.Rcpt(to); err != nil {
		t.Fatal(err)
	}
	w, err := cl.Data()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestPipelinedCommands(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	a, b := inbox(t, svc, "p1@tempmail.test"), inbox(t, svc, "p2@tempmail.test")
	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO client.example")
	// RFC 2920: the whole envelope and DATA in one write.
	c.write("MAIL FROM:<s@example.com>\r\nRCPT TO:<p1@tempmail.test>\r\nRCPT TO:<nope@tempmail.test>\r\nRCPT TO:<p2@tempmail.test>\r\nDATA\r\n")
	for _, want := range []int{250, 250, 550, 250, 354} {
		if code, reply := c.reply(); code != want {
			t.Fatalf("pipelined reply %d %s, want %d", code, reply, want)
		}
	}
	// Two messages back to back in one write as well.
	c.write(msg("s@example.com", "p1", "first", "1") + ".\r\nMAIL FROM:<s@example.com>\r\nRCPT TO:<p1@tempmail.test>\r\nDATA\r\n")
	for _, want := range []int{250, 250, 250, 354} {
		if code, reply := c.reply(); code != want {
			t.Fatalf("pipelined reply %d %s, want %d", code, reply, want)
		}
	}
	c.cmd(250, msg("s@example.com", "p1", "second", "2")+".")
	if got := messages(t, svc, a.ID, 2); got[0].Subject != "second" || got[1].Subject != "first" {
		t.Errorf("p1: %q, %q", got[0].Subject, got[1].Subject)
	}
	if got := messages(t, svc, b.ID, 1); got[0].Subject != "first" {
		t.Errorf("p2: %q", got[0].Subject)
	}
}

func TestBDAT(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	in := inbox(t, svc, "chunks@tempmail.test")
	c := dial(t, svc.SMTPAddr())
	c.cmd(250, "EHLO client.example")
	c.cmd(250, "MAIL FROM:<s@example.com>")
	c.cmd(250, "RCPT TO:<chunks@tempmail.test>")
	m := msg("s@example.com", "chunks@tempmail.test", "in chunks", "line one\r\n.line that starts with a dot\r\nline three")
	first, rest := m[:50], m[50:]
	c.write(fmt.Sprintf("BDAT %d\r\n%s", len(first), first))
	if code, reply := c.reply(); code != 250 {
		t.Fatalf("first chunk: %d %s", code, reply)
	}
	c.write(fmt.Sprintf("BDAT %d LAST\r\n%s", len(rest), rest))
	if code, reply := c.reply(); code != 250 {
		t.Fatalf("last chunk: %d %s", code, reply)
	}
	got := messages(t, svc, in.ID, 1)[0]
	if got.Subject != "in chunks" || !strings.Contains(got.Text, "\n.line that starts with a dot\n") || !strings.HasSuffix(string(raw(t, svc, got)), m) {
		t.Errorf("subject %q text %q", got.Subject, got.Text)
	}
}

func TestRetriedTransactionIsStoredOnce(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	in := inbox(t, svc, "retry@tempmail.test")
	body := msg("s@example.com", "retry@tempmail.test", "once", "same bytes")
	for range 3 {
		backendtest.Send(t, svc.SMTPAddr(), "s@example.com", "retry@tempmail.test", body)
	}
	backendtest.Send(t, svc.SMTPAddr(), "s@example.com", "retry@tempmail.test", body+"different")
	if got := messages(t, svc, in.ID, 2); got[1].Subject != "once" {
		t.Errorf("got %+v", got)
	}
}

func TestPerIPLimits(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.SMTPMaxConnsPerIP, cfg.SMTPRatePerIP = 2, 3
	svc := backendtest.Start(t, cfg)
	inbox(t, svc, "rate@tempmail.test")
	c1, c2 := dial(t, svc.SMTPAddr()), dial(t, svc.SMTPAddr())
	third, err := net.Dial("tcp", svc.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	buf := make([]byte, 200)
	n, _ := third.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "421 4.7.0") {
		t.Errorf("third connection greeted with %q, want 421 4.7.0", buf[:n])
	}
	c2.cmd(221, "QUIT")
	c1.cmd(250, "EHLO client.example")
	for i := range 3 {
		c1.cmd(250, "MAIL FROM:<s@example.com>")
		c1.cmd(250, "RCPT TO:<rate@tempmail.test>")
		c1.cmd(354, "DATA")
		c1.cmd(250, msg("s@example.com", "rate@tempmail.test", fmt.Sprint("n", i), "x")+".")
	}
	// The fourth message in a minute is put off, the connection kept.
	if reply := c1.cmd(450, "MAIL FROM:<s@example.com>"); !strings.HasPrefix(reply, "4.7.1") {
		t.Errorf("fourth message in a minute: %q", reply)
	}
	c1.cmd(250, "RSET")
	c1.cmd(221, "QUIT")
	// A closed connection frees its place: once the server has seen both
	// closes, new ones are greeted.
	eventually.True(t, "both connections closed", func() bool { return smtpConnections(t, svc) == 0 })
	dial(t, svc.SMTPAddr())
	dial(t, svc.SMTPAddr())
}
