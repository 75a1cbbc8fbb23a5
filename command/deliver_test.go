package command_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/command"
	"tempmail/config"
	"tempmail/eventually"
	"tempmail/mailauth"
	"tempmail/mailbox"
	"tempmail/projections"
)

// Mail is delivered here as the SMTP server delivers it once DATA ends:
// our Received field on top (Commands.ReceivedHeader), the checks
// (Commands.Authenticate), then Deliver to the inboxes Accept returned.
// What was stored is read back through the views, and the raw source as
// the API serves it.

// hostname is the name the services of these tests go by: their Received
// and Authentication-Results fields name it.
const hostname = "mx.tempmail.test"

// named gives a service hostname.
func named(c *config.Config) { c.Hostname = hostname }

// message is a plain message to to, with a Message-ID of its own.
func message(to, subject, body string) string {
	return fmt.Sprintf("From: Shop <shop@example.com>\r\nTo: %s\r\nSubject: %s\r\nDate: Sat, 21 Nov 2026 19:00:00 +0000\r\n"+
		"Message-ID: <%s@example.com>\r\n\r\n%s\r\n", to, subject, uuid.NewString(), body)
}

// deliverWith stores msg for rcpts through c, as sent from 192.0.2.1 by
// a client that said helo, and waits until svc's views have applied every
// copy it stored (as the inbound webhook does before its 201).
func deliverWith(t *testing.T, svc *backend.Backend, c *command.Commands, helo string, rcpts []*projections.Inbox, msg string) (command.Delivered, error) {
	t.Helper()
	addrs := make([]string, len(rcpts))
	for i, in := range rcpts {
		addrs[i] = in.Address
	}
	hdr := c.ReceivedHeader(helo, "192.0.2.1", "ESMTP", uuid.NewString(), addrs, time.Now())
	room := c.HeaderRoom(hdr)
	buf := make([]byte, room+len(msg))
	copy(buf[room:], msg)
	raw, sent, auth := c.Authenticate(t.Context(), buf, room, hdr,
		mailauth.Input{ClientIP: net.ParseIP("192.0.2.1"), Helo: helo, MailFrom: "bounce@example.com"})
	res, err := c.Deliver(t.Context(), command.Envelope{MailFrom: "bounce@example.com", Recipients: rcpts, Auth: auth}, raw, sent)
	if err == nil {
		for _, ack := range res.Acks {
			backendtest.Applied(t, svc, ack)
		}
	}
	return res, err
}

// deliver is deliverWith through svc's own commands, from client.example,
// to the inboxes Accept returns for addrs now; it fails the test if any is
// refused.
func deliver(t *testing.T, svc *backend.Backend, msg string, addrs ...string) (command.Delivered, error) {
	t.Helper()
	var rcpts []*projections.Inbox
	for _, addr := range addrs {
		in, err := svc.Commands.Accept(t.Context(), addr, operator)
		if err != nil {
			t.Fatalf("Accept %s: %v", addr, err)
		}
		rcpts = append(rcpts, in)
	}
	return deliverWith(t, svc, svc.Commands, "client.example", rcpts, msg)
}

// inbox returns in as the views show it now.
func inbox(t *testing.T, svc *backend.Backend, in *projections.Inbox) *projections.Inbox {
	t.Helper()
	now, err := svc.Views.Inbox(t.Context(), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// listed returns the ids of in's messages, newest first, as the views
// show them now.
func listed(t *testing.T, svc *backend.Backend, in *projections.Inbox) []string {
	t.Helper()
	list, err := svc.Views.Messages(t.Context(), inbox(t, svc, in))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

// read returns a stored message, with what it says, and its raw source as
// the API serves it.
func read(t *testing.T, svc *backend.Backend, id string) (*mailbox.Message, []byte) {
	t.Helper()
	m, _, err := svc.Views.Message(t.Context(), id)
	if err != nil {
		t.Fatalf("message %s: %v", id, err)
	}
	if m.RawObject == "" {
		return m, m.Raw
	}
	r, err := svc.Store.OpenRaw(t.Context(), m.ContentRef(), m.RawObject)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return m, b
}

// TestDeliverStoresACopyForEachRecipient: a message to three inboxes is
// stored once for each, every copy under an id of its own, in the order
// of the recipients; each is readable as soon as its event is applied,
// through the views and by its inbox's token (what family C serves), with
// what it says and its raw source: our Received field on top, then the
// bytes as sent.
func TestDeliverStoresACopyForEachRecipient(t *testing.T) {
	t.Parallel()
	svc := start(t, named)
	ins := []*projections.Inbox{newInbox(t, svc, "one"), newInbox(t, svc, "two"), newInbox(t, svc, "three")}
	msg := message("one@tempmail.test, two@tempmail.test", "Your code", "Your code is 424242.")
	res, err := deliver(t, svc, msg, "one@tempmail.test", "TWO@tempmail.test", "three+tag@tempmail.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MessageIDs) != 3 || res.Duplicate || len(res.Acks) != 3 || !strings.Contains(msg, "Message-ID: "+res.HeaderMessageID+"\r\n") {
		t.Fatalf("Deliver answered %+v", res)
	}
	seen := map[string]bool{}
	for i, in := range ins {
		id := res.MessageIDs[i]
		if seen[id] {
			t.Errorf("copy %d has the id %s of another", i, id)
		}
		seen[id] = true
		if got := listed(t, svc, in); len(got) != 1 || got[0] != id {
			t.Errorf("%s lists %v, want [%s]", in.Address, got, id)
		}
		m, raw := read(t, svc, id)
		if m.InboxID != in.ID || m.Address != in.Address || m.Subject != "Your code" || m.From != "shop@example.com" ||
			m.FromName != "Shop" || m.MailFrom != "bounce@example.com" || m.Text != "Your code is 424242.\n" ||
			m.HeaderMessageID != res.HeaderMessageID || m.Size != int64(len(raw)) || m.Auth != nil {
			t.Errorf("%s's copy: %+v", in.Address, m)
		}
		if !strings.HasPrefix(string(raw), "Received: from client.example (192.0.2.1)\r\n\tby "+hostname+" (tempmail) with ESMTP id ") ||
			!strings.HasSuffix(string(raw), "\r\n"+msg) || strings.Count(string(raw), "Received:") != 1 {
			t.Errorf("%s's raw source:\n%s", in.Address, raw)
		}
		// What family C serves its holder: the copy, found by the inbox's
		// token and read by its id.
		byToken, err := svc.Views.InboxByToken(t.Context(), in.Token)
		if err != nil {
			t.Fatalf("%s by its token: %v", in.Address, err)
		}
		if m, _, err := svc.Views.Message(t.Context(), id); err != nil || m.InboxID != byToken.ID || !strings.Contains(m.Text, "424242") {
			t.Errorf("%s's copy read by its token: %+v %v", in.Address, m, err)
		}
	}
}

// TestARetryIsRecognisedByItsPrint: a sender's retry of the same bytes is
// not stored again: Deliver answers Duplicate with the first copy's ids
// and publishes nothing, so that the stream's dedupe window (2 minutes)
// plays no part, and so it is long after it and once newer mail has come.
// So is a retry whose header differs (another relay's trace) with the same
// Message-ID and body; a message that differs in its body is new. A retry
// to more recipients stores only the new ones' copies.
func TestARetryIsRecognisedByItsPrint(t *testing.T) {
	t.Parallel()
	svc := start(t, named)
	a, b := newInbox(t, svc, "a"), newInbox(t, svc, "b")
	msg := message(a.Address, "once", "Your code is 318207.")
	first, err := deliver(t, svc, msg, a.Address)
	if err != nil || first.Duplicate || len(first.MessageIDs) != 1 {
		t.Fatalf("first delivery: %+v %v", first, err)
	}
	retry := func(msg string, addrs ...string) command.Delivered {
		t.Helper()
		before := logEnd(t, svc)
		res, err := deliver(t, svc, msg, addrs...)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Duplicate || len(res.Acks) != 0 || len(res.MessageIDs) != 1 || res.MessageIDs[0] != first.MessageIDs[0] {
			t.Errorf("a retry: %+v, want a duplicate of %s with nothing published", res, first.MessageIDs[0])
		}
		if got := logEnd(t, svc); got != before {
			t.Errorf("a retry recorded %d events", got-before)
		}
		return res
	}
	retry(msg, a.Address)
	relayed := "Received: from relay.example by mx.example; Sat, 21 Nov 2026 19:05:00 +0000\r\n" + msg
	retry(relayed, a.Address)

	// Newer mail pushes the first off the inbox's open page of 32.
	for i := range 40 {
		if _, err := deliver(t, svc, message(a.Address, "newer", fmt.Sprint(i)), a.Address); err != nil {
			t.Fatal(err)
		}
	}
	retry(msg, a.Address)
	changed, err := deliver(t, svc, strings.Replace(msg, "318207", "999999", 1), a.Address)
	if err != nil || changed.Duplicate || changed.MessageIDs[0] == first.MessageIDs[0] {
		t.Errorf("another body with the same Message-ID: %+v %v, want a new message", changed, err)
	}

	wider, err := deliver(t, svc, msg, b.Address, a.Address)
	if err != nil {
		t.Fatal(err)
	}
	if wider.Duplicate || len(wider.MessageIDs) != 2 || wider.MessageIDs[1] != first.MessageIDs[0] || len(wider.Acks) != 1 {
		t.Errorf("the retry to one more recipient: %+v, want a new copy for b and a's first", wider)
	}
	if got := listed(t, svc, b); len(got) != 1 || got[0] != wider.MessageIDs[0] {
		t.Errorf("b lists %v, want [%s]", got, wider.MessageIDs[0])
	}
	if got := len(listed(t, svc, a)); got != 42 {
		t.Errorf("a lists %d messages, want 42: the first, 40 newer, one changed", got)
	}
}

// TestRacingRetriesStoreOneCopy: copies of one message sent at once (a
// sender that timed out and tried again meanwhile) store one copy for
// each recipient, which every answer names.
func TestRacingRetriesStoreOneCopy(t *testing.T) {
	t.Parallel()
	svc := start(t)
	a, b := newInbox(t, svc, "a"), newInbox(t, svc, "b")
	msg := message(a.Address, "raced", "the same bytes")
	res := make([]command.Delivered, 8)
	errs := race(len(res), func(ctx context.Context, i int) (err error) {
		res[i], err = svc.Commands.Deliver(ctx, command.Envelope{Recipients: []*projections.Inbox{a, b}}, []byte(msg), []byte(msg))
		return err
	})
	stored := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("racing Deliver %d: %v", i, err)
		}
		if res[i].MessageIDs[0] != res[0].MessageIDs[0] || res[i].MessageIDs[1] != res[0].MessageIDs[1] {
			t.Errorf("racing Deliver %d names %v, another %v", i, res[i].MessageIDs, res[0].MessageIDs)
		}
		if !res[i].Duplicate {
			stored++
		}
		for _, ack := range res[i].Acks {
			backendtest.Applied(t, svc, ack)
		}
	}
	if stored != 1 {
		t.Errorf("%d of the racing deliveries say they stored the message, want 1", stored)
	}
	for i, in := range []*projections.Inbox{a, b} {
		if got := listed(t, svc, in); len(got) != 1 || got[0] != res[0].MessageIDs[i] {
			t.Errorf("%s lists %v, want [%s]", in.Address, got, res[0].MessageIDs[i])
		}
	}
}

// TestAMessageLargerThanTheLimitIsRefused: what the sender sent may be
// Mail.MaxMessageBytes long, our Received field not counted; a byte more
// is TooLarge and stores nothing.
func TestAMessageLargerThanTheLimitIsRefused(t *testing.T) {
	t.Parallel()
	svc := start(t, func(c *config.Config) { c.MaxMessageBytes = 4 << 10 })
	in := newInbox(t, svc, "small")
	head := message(in.Address, "fits", "")
	fits := head + strings.Repeat("x", 4<<10-len(head))
	before := logEnd(t, svc)
	if res, err := deliver(t, svc, fits+"x", in.Address); tempmail.KindOf(err) != tempmail.TooLarge {
		t.Errorf("a byte too large: %+v %v, want TooLarge", res, err)
	}
	if got := logEnd(t, svc); got != before {
		t.Errorf("the refusal recorded %d events", got-before)
	}
	res, err := deliver(t, svc, fits, in.Address)
	if err != nil {
		t.Fatalf("a message of the largest size: %v", err)
	}
	if got := listed(t, svc, in); len(got) != 1 || got[0] != res.MessageIDs[0] {
		t.Errorf("the inbox lists %v, want [%s]", got, res.MessageIDs[0])
	}
}

// TestAnInboxEndedBeforeDeliveryIsLeftOut: an inbox deleted between
// Accept and Deliver gets no copy, and the others get theirs; when none
// remains, Deliver answers ErrNoMailbox and stores nothing.
func TestAnInboxEndedBeforeDeliveryIsLeftOut(t *testing.T) {
	t.Parallel()
	svc := start(t)
	kept, gone := newInbox(t, svc, "kept"), newInbox(t, svc, "gone")
	if err := svc.Commands.DeleteInbox(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	res, err := deliverWith(t, svc, svc.Commands, "client.example", []*projections.Inbox{gone, kept}, message(kept.Address, "to both", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MessageIDs) != 1 || res.Duplicate {
		t.Fatalf("Deliver answered %+v, want one copy", res)
	}
	if m, _ := read(t, svc, res.MessageIDs[0]); m.InboxID != kept.ID {
		t.Errorf("the copy is %s's, want %s's", m.Address, kept.Address)
	}
	if got := listed(t, svc, kept); len(got) != 1 {
		t.Errorf("%s lists %v", kept.Address, got)
	}

	stale := kept // as Accept returned it, before its deletion
	if err := svc.Commands.DeleteInbox(t.Context(), inbox(t, svc, kept)); err != nil {
		t.Fatal(err)
	}
	before := logEnd(t, svc)
	if res, err := deliverWith(t, svc, svc.Commands, "client.example", []*projections.Inbox{gone, stale}, message(kept.Address, "to none", "hi")); !errors.Is(err, command.ErrNoMailbox) {
		t.Errorf("to inboxes all ended: %+v %v, want ErrNoMailbox", res, err)
	}
	if got := logEnd(t, svc); got != before {
		t.Errorf("a delivery to no one recorded %d events", got-before)
	}
}

// TestFamilyBMessagesAreKeptForTheRetention: a family B inbox's copy is
// deleted once Mail.Retention has passed, its inbox staying live; another
// family's copy of the same message stays.
func TestFamilyBMessagesAreKeptForTheRetention(t *testing.T) {
	t.Parallel()
	svc := backendtest.StartWith(t, backendtest.Config(t), backend.Options{Mail: func(m *command.Mail) { m.Retention = time.Second }})
	d := domain(t, svc, "tempmail.test")
	mailbox, err := svc.Commands.CreateInbox(t.Context(), command.Spec{Retention: mailbox.RetainMessages, Local: "keeper", Domain: d})
	if err != nil {
		t.Fatal(err)
	}
	other := newInbox(t, svc, "other")
	res, err := deliver(t, svc, message(mailbox.Address, "kept a while", "hi"), mailbox.Address, other.Address)
	if err != nil {
		t.Fatal(err)
	}
	if got := listed(t, svc, mailbox); len(got) != 1 || got[0] != res.MessageIDs[0] {
		t.Fatalf("the mailbox lists %v, want [%s]", got, res.MessageIDs[0])
	}
	eventually.True(t, "the mailbox's copy deleted after the retention", func() bool {
		return len(listed(t, svc, mailbox)) == 0
	})
	if _, _, err := svc.Views.Message(t.Context(), res.MessageIDs[0]); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the retained copy is still read: %v", err)
	}
	if in := inbox(t, svc, mailbox); !in.Live(time.Now()) {
		t.Errorf("the mailbox ended with its message: %+v", in)
	}
	if got := listed(t, svc, other); len(got) != 1 || got[0] != res.MessageIDs[1] {
		t.Errorf("the family C inbox lists %v, want [%s]", got, res.MessageIDs[1])
	}
}
