package backendtest

import (
	"net/smtp"
	"testing"
)

// Send delivers raw, a whole message, to to through the SMTP server at
// addr with from as the envelope's sender, as any mail server would; a
// refusal fails the test. It is how a test that needs mail delivered
// sends it (tests of the SMTP conversation itself speak it). Lines of raw
// may end in LF: they go as CRLF.
func Send(t testing.TB, addr, from, to, raw string) {
	t.Helper()
	if err := TrySend(addr, from, to, raw); err != nil {
		t.Fatalf("SMTP from %s to %s: %v", from, to, err)
	}
}

// TrySend is Send that returns the server's refusal instead of failing
// the test: for a test that expects one, or that sends from a goroutine
// of its own, or until a server is back.
func TrySend(addr, from, to, raw string) error {
	return smtp.SendMail(addr, nil, from, []string{to}, []byte(raw))
}

// Mail sends (TrySend) a plain message from s@example.com to to through
// the SMTP server at addr.
func Mail(addr, to, subject, body string) error {
	return TrySend(addr, "s@example.com", to, "From: s@example.com\r\nTo: "+to+"\r\nSubject: "+subject+"\r\n\r\n"+body+"\r\n")
}
