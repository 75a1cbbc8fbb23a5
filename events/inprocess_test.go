package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail/events"
)

// inProcess is the stream's answer to a publish whose Nats-Msg-Id an
// earlier try holds in flight: proposed by its leader, not yet stored.
var inProcess = []byte(`{"type":"io.nats.jetstream.api.v1.pub_ack_response","error":{"code":409,"err_code":10158,"description":"duplicate message id is in process"},"stream":"EVENTS"}`)

// TestADeliveryInProcessIsNeverDiscarded replays what a cluster answered
// around a stream leader's 6 s pause: a message's first try was stored and
// never answered; its second was answered "duplicate message id is in
// process". That answer is no refusal: the store must not take it for
// one and erase the copy's content (the message, stored, would never be
// readable, and the sender's resend, recognised as its duplicate, would be
// acknowledged for nothing). It tries again until the stored copy answers,
// or reports an unknown outcome and keeps everything; a sender's resend
// then names the stored copy, whose content opens.
func TestADeliveryInProcessIsNeverDiscarded(t *testing.T) {
	t.Parallel()
	e := newOutcomeEnv(t)
	ctx := ctxT(t)
	in := inbox("stalled@x.test")
	created, err := e.store.CreateInbox(ctx, in, 0)
	if err != nil {
		t.Fatal(err)
	}

	// Answered in process once: the next try learns it is stored.
	e.proxy.ScriptAnswers(isEvent(".m."), nil, inProcess)
	d := delivery(in, created.Seq, []byte("Subject: one\r\n\r\nfirst\r\n"), "in-process-1")
	acks, err := e.store.AppendMail(ctx, []events.Copy{d})
	if err != nil || acks[0].MessageID != d.Mail.MessageID || acks[0].Duplicate {
		t.Fatalf("a delivery answered in process once: %+v %v; want it stored as %s", acks, err, d.Mail.MessageID)
	}

	// Answered in process until the sender's time runs out: an unknown
	// outcome, and the sender's resend (the same bytes, a new copy) is
	// the stored copy's duplicate.
	answers := [][]byte{nil}
	for range 50 {
		answers = append(answers, inProcess)
	}
	e.proxy.ScriptAnswers(isEvent(".m."), answers...)
	lost := delivery(in, created.Seq, []byte("Subject: two\r\n\r\nsecond\r\n"), "in-process-2")
	dctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	_, err = e.store.AppendMail(dctx, []events.Copy{lost})
	cancel()
	if !events.IsUnknownOutcome(err) {
		t.Fatalf("a delivery answered in process to the end: %v, want an unknown outcome", err)
	}
	e.proxy.ScriptAnswers(nil)
	resend := lost
	resend.Mail.MessageID = uuid.NewString()
	acks, err = e.store.AppendMail(ctx, []events.Copy{resend})
	if err != nil || !acks[0].Duplicate || acks[0].MessageID != lost.Mail.MessageID {
		t.Fatalf("the sender's resend: %+v %v; want the stored copy %s", acks, err, lost.Mail.MessageID)
	}

	// Both stored once, and both open (storedMail checks their content).
	stored := e.storedMail()
	if len(stored) != 2 || stored[d.Mail.MessageID] == nil || stored[lost.Mail.MessageID] == nil {
		t.Fatalf("stored %d messages, want the two", len(stored))
	}
}
