package command_test

import (
	"strings"
	"testing"

	"tempmail/projections"
)

// TestReceivedNamesUsAndKeepsTheClientsWordsInIt: the Received field on
// top of a stored message names the service's host name, and what the
// client said of itself stays inside the field: a HELO with parentheses,
// semicolons, CR and LF, and far too long, becomes at most 255 bytes of
// plain words, and adds no header of its own. The field names its one
// recipient, and no one when there are more.
func TestReceivedNamesUsAndKeepsTheClientsWordsInIt(t *testing.T) {
	t.Parallel()
	svc := start(t, named)
	one, two := newInbox(t, svc, "one"), newInbox(t, svc, "two")
	hostile := "evil.example (trusted); by " + hostname + "\r\nX-Injected: yes\r\n\r\nbody" + strings.Repeat("a", 1000)
	msg := message(one.Address, "hostile", "hi")
	res, err := deliverWith(t, svc, svc.Commands, hostile, []*projections.Inbox{one}, msg)
	if err != nil {
		t.Fatal(err)
	}
	m, raw := read(t, svc, res.MessageIDs[0])
	field, ok := strings.CutSuffix(string(raw), msg)
	if !ok {
		t.Fatalf("the raw source does not end with the message as sent:\n%s", raw)
	}
	lines := strings.Split(strings.TrimSuffix(field, "\r\n"), "\r\n")
	helo, _, _ := strings.Cut(strings.TrimPrefix(lines[0], "Received: from "), " (192.0.2.1)")
	if want := "evil.example trusted by " + hostname + "X-Injected: yesbody"; !strings.HasPrefix(lines[0], "Received: from "+want) ||
		len(helo) != 255 || strings.Trim(helo[len(want):], "a") != "" {
		t.Errorf("the field's first line %q, want the HELO as %q... of 255 bytes, then (192.0.2.1)", lines[0], want)
	}
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "\tby "+hostname+" (tempmail) with ESMTP id ") ||
		lines[2] != "\tfor <"+one.Address+">;" || !strings.HasPrefix(lines[3], "\t") {
		t.Errorf("the Received field:\n%s", field)
	}
	if _, ok := m.Headers["X-Injected"]; ok || !strings.Contains(m.Headers["Received"], "by "+hostname+" (tempmail)") || m.Subject != "hostile" {
		t.Errorf("the stored message's headers: %v", m.Headers)
	}

	res, err = deliver(t, svc, message(one.Address, "to two", "hi"), one.Address, two.Address)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range res.MessageIDs {
		if _, raw := read(t, svc, id); !strings.HasPrefix(string(raw), "Received: from client.example (192.0.2.1)\r\n\tby "+hostname) ||
			strings.Contains(string(raw), "\tfor <") {
			t.Errorf("a copy of a message to two:\n%s", raw)
		}
	}
}

// TestAuthenticationResultsClaimingUsAreRemovedWithChecksOff: a field
// that claims our host name, in any case and with a final dot, is the
// sender's forgery and goes, also with the checks off; another server's
// stays, and nothing is claimed for the message.
func TestAuthenticationResultsClaimingUsAreRemovedWithChecksOff(t *testing.T) {
	t.Parallel()
	svc := start(t, named)
	in := newInbox(t, svc, "forged")
	relay := "Authentication-Results: mx.relay.test; spf=pass smtp.mailfrom=sender.test\r\n"
	msg := message(in.Address, "forged", "Your code is 424242.")
	sent := "Authentication-Results: " + hostname + "; dmarc=pass header.from=bank.test\r\n" + relay +
		"Authentication-Results: (trust me)\r\n MX.TEMPMAIL.TEST;\r\n dkim=pass header.d=bank.test\r\n" +
		"Authentication-Results: " + hostname + ".; dkim=pass header.d=bank.test\r\n" + msg
	res, err := deliver(t, svc, sent, in.Address)
	if err != nil {
		t.Fatal(err)
	}
	m, raw := read(t, svc, res.MessageIDs[0])
	if !strings.HasSuffix(string(raw), "\r\n"+relay+msg) || strings.Count(string(raw), "Authentication-Results:") != 1 || !strings.HasPrefix(string(raw), "Received: ") {
		t.Errorf("raw:\n%s\nwant our Received, the relay's field and the message", raw)
	}
	if m.Auth != nil || m.Headers["Authentication-Results"] != strings.TrimSpace(strings.TrimPrefix(relay, "Authentication-Results:")) {
		t.Errorf("stored results %+v and headers %v", m.Auth, m.Headers)
	}
}
