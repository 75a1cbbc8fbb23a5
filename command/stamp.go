package command

import (
	"context"
	"fmt"
	"strings"
	"time"

	"tempmail"
	"tempmail/mailauth"
	"tempmail/mailbox"
)

// What the service puts on top of every message it keeps, whether SMTP or
// the inbound webhook handed it over: its Received field and, with checks
// on, an Authentication-Results field.

// HeaderRoom is the room a message needs in front of it, in the buffer
// that holds it, for the headers the service adds: received (our
// Received field) and, with checks on, an Authentication-Results field.
func (c *Commands) HeaderRoom(received string) int {
	if c.Mail.Auth == nil {
		return len(received)
	}
	return len(received) + mailauth.MaxHeaderBytes
}

// Authenticate makes a message ready to store. buf holds the client's
// bytes from off on, with HeaderRoom(received) bytes of room before them.
// With checks on it checks them, and it removes any Authentication-Results
// field that claims our host name (RFC 8601 section 5), checks on or off.
// It returns the message as kept (received, our Authentication-Results,
// the client's bytes), the client's bytes as kept (what identifies a
// retry), and the result; all in buf, nothing copied but the headers.
func (c *Commands) Authenticate(ctx context.Context, buf []byte, off int, received string, in mailauth.Input) (raw, client []byte, res *mailbox.Auth) {
	client = buf[off:]
	var results string
	if c.Mail.Auth != nil {
		in.Message = client
		res = c.Mail.Auth.Verify(ctx, in)
		results = mailauth.Header(c.Mail.Hostname, res)
		if len(received)+len(results) > off {
			results = "" // only for a Hostname far longer than a host name can be
		}
	}
	client = mailauth.RemoveOwnResults(client, c.Mail.Hostname)
	start := off - len(received) - len(results)
	copy(buf[start:], received)
	copy(buf[start+len(received):], results)
	return buf[start : off+len(client)], client, res
}

// ReceivedHeader is the trace header the service puts on top of every
// message it stores (RFC 5321 section 4.4).
func (c *Commands) ReceivedHeader(helo, remoteIP, proto, id string, rcpts []string, at time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Received: from %s (%s)\r\n\tby %s (tempmail) with %s id %s", sanitize(helo), sanitize(remoteIP), c.Mail.Hostname, proto, id)
	if len(rcpts) == 1 {
		fmt.Fprintf(&b, "\r\n\tfor <%s>", sanitize(rcpts[0]))
	}
	fmt.Fprintf(&b, ";\r\n\t%s\r\n", at.Format(time.RFC1123Z))
	return b.String()
}

// sanitize keeps client-supplied words from breaking the header.
func sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '(' || r == ')' || r == ';' {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return "unknown"
	}
	return tempmail.Truncate(s, 255)
}
