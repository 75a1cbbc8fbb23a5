package command_test

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tempmail"
	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/command"
	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
	"tempmail/mailbox"
)

// handOver delivers msg as the inbound webhook does, from 192.0.2.9, and
// waits until the views have applied every copy stored, as the webhook
// does before its 201.
func handOver(t *testing.T, svc *backend.Backend, c *command.Commands, msg string, to ...string) (command.Delivered, error) {
	t.Helper()
	res, err := c.DeliverHandedOver(t.Context(), "192.0.2.9", to, []byte(msg))
	if err == nil {
		for _, ack := range res.Acks {
			backendtest.Applied(t, svc, ack)
		}
	}
	return res, err
}

// TestDeliverHandedOverTakesTheKnownRecipients: of the addresses a message
// is handed over for, those without a live inbox (unknown, or on a domain
// not served) are left out, and addresses of one inbox get one copy;
// every inbox's copy has our Received field, naming the webhook and the
// caller. When no address has an inbox, nothing is stored; more than
// MaxRecipients addresses are refused as Invalid, even of one inbox.
func TestDeliverHandedOverTakesTheKnownRecipients(t *testing.T) {
	t.Parallel()
	svc := start(t, named)
	a, b := newInbox(t, svc, "a"), newInbox(t, svc, "b")
	msg := message("a@tempmail.test", "handed over", "hi")
	res, err := handOver(t, svc, svc.Commands, msg,
		"a@tempmail.test", "nobody@tempmail.test", "a@gmail.com", "A@TEMPMAIL.TEST", "a+tag@tempmail.test", "b@tempmail.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MessageIDs) != 2 || res.Duplicate {
		t.Fatalf("DeliverHandedOver answered %+v, want a copy for a and b", res)
	}
	for i, in := range []string{a.ID, b.ID} {
		m, raw := read(t, svc, res.MessageIDs[i])
		if m.InboxID != in || m.Subject != "handed over" {
			t.Errorf("copy %d: %+v", i, m)
		}
		if !strings.HasPrefix(string(raw), "Received: from webhook (192.0.2.9)\r\n\tby "+hostname+" (tempmail) with HTTP id ") ||
			!strings.HasSuffix(string(raw), "\r\n"+msg) {
			t.Errorf("copy %d's raw source:\n%s", i, raw)
		}
	}
	if got := listed(t, svc, a); len(got) != 1 {
		t.Errorf("a lists %v, want one message", got)
	}

	before := logEnd(t, svc)
	if res, err := handOver(t, svc, svc.Commands, msg, "nobody@tempmail.test", "a@gmail.com"); !errors.Is(err, command.ErrNoMailbox) {
		t.Errorf("to no known address: %+v %v, want ErrNoMailbox", res, err)
	}
	if res, err := handOver(t, svc, svc.Commands, msg); !errors.Is(err, command.ErrNoMailbox) {
		t.Errorf("to no address: %+v %v, want ErrNoMailbox", res, err)
	}
	tooMany := slices.Repeat([]string{b.Address}, command.MaxRecipients+1)
	if res, err := handOver(t, svc, svc.Commands, message(b.Address, "too many", "hi"), tooMany...); tempmail.KindOf(err) != tempmail.Invalid {
		t.Errorf("to %d addresses: %+v %v, want Invalid", len(tooMany), res, err)
	}
	if got := logEnd(t, svc); got != before {
		t.Errorf("refusals recorded %d events", got-before)
	}
	res, err = handOver(t, svc, svc.Commands, message(b.Address, "as many as may be", "hi"), tooMany[1:]...)
	if err != nil || len(res.MessageIDs) != 1 {
		t.Errorf("to %d addresses of one inbox: %+v %v, want one copy", len(tooMany)-1, res, err)
	}
}

// The inbound webhook has no SMTP client: SPF says none, and DKIM and
// DMARC check the message as any other.
func TestAuthenticationOfTheInboundWebhook(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	dns.TXT("sender.test", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.test", "v=DMARC1; p=reject")
	key := authtest.NewKey(t, "sender.test", "sel")
	key.Publish(dns)
	res, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: dns.Addr, QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// The checks have a resolver of their own, which no flag gives.
	cfg := backendtest.Config(t)
	named(&cfg)
	svc := backendtest.StartWith(t, cfg, backend.Options{Mail: func(m *command.Mail) {
		m.Auth = &mailauth.Verifier{DNS: res, Timeout: 5 * time.Second}
	}})
	in := newInbox(t, svc, "hook")
	signed := key.Sign(t, strings.Replace(message(in.Address, "over HTTP", "Your code is 424242."),
		"From: Shop <shop@example.com>", "From: shop@sender.test", 1))
	got, err := handOver(t, svc, svc.Commands, signed, in.Address)
	if err != nil {
		t.Fatal(err)
	}
	m, raw := read(t, svc, got.MessageIDs[0])
	want := mailbox.Auth{SPF: mailbox.SPF{Result: "none"},
		DKIM:  []mailbox.DKIM{{Result: "pass", Domain: "sender.test", Selector: "sel"}},
		DMARC: mailbox.DMARC{Result: "pass", Domain: "sender.test", Policy: "reject"}}
	if m.Auth == nil || !reflect.DeepEqual(*m.Auth, want) {
		t.Errorf("stored %+v, want %+v", m.Auth, want)
	}
	if !bytes.Contains(raw, []byte("\r\nAuthentication-Results: "+hostname+";\r\n\tspf=none;\r\n\tdkim=pass")) ||
		!bytes.HasSuffix(raw, []byte(signed)) {
		t.Errorf("raw:\n%s", raw)
	}
}
