package broker_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/broker/natstest"
)

// An atomic batch is stored whole, at consecutive sequences ending at the
// one returned, and leaves its messages as they came; a refusal is the
// server's, after the commit went out; a batch nobody takes is not sent.
func TestPublishBatchStoresAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node := natstest.StartNode(t, t.TempDir())
	st, err := node.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "B", Subjects: []string{"b.>"}, AllowAtomicPublish: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.JS.Publish(ctx, "b.first", nil); err != nil {
		t.Fatal(err)
	}
	batch := func(subjects ...string) []*nats.Msg {
		var msgs []*nats.Msg
		for _, s := range subjects {
			msgs = append(msgs, nats.NewMsg(s))
		}
		return msgs
	}
	msgs := batch("b.x", "b.y", "b.z")
	seq, sent, err := broker.PublishBatch(ctx, node.JS.Conn(), msgs, 5*time.Second)
	if err != nil || !sent || seq != 4 {
		t.Fatalf("batch: seq %d, sent %v, %v; want 4, sent", seq, sent, err)
	}
	for i, subject := range []string{"b.x", "b.y", "b.z"} {
		if m, err := st.GetMsg(ctx, uint64(2+i)); err != nil || m.Subject != subject {
			t.Errorf("sequence %d: %v, %v; want %s", 2+i, m, err, subject)
		}
	}
	for _, m := range msgs {
		if len(m.Header) != 0 {
			t.Errorf("%s keeps the batch's headers: %v", m.Subject, m.Header)
		}
	}

	// The second message expects b.first's last sequence to be what it no
	// longer is: the server refuses the batch, and stores none of it.
	msgs = batch("b.p", "b.first")
	msgs[1].Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.Itoa(0))
	_, sent, err = broker.PublishBatch(ctx, node.JS.Conn(), msgs, 5*time.Second)
	var apiErr *jetstream.APIError
	if !sent || !errors.As(err, &apiErr) {
		t.Fatalf("refused batch: sent %v, %v; want sent and the server's refusal", sent, err)
	}
	if info, err := st.Info(ctx); err != nil || info.State.LastSeq != 4 {
		t.Errorf("after a refused batch the stream ends at %d (%v), want 4", info.State.LastSeq, err)
	}

	_, sent, err = broker.PublishBatch(ctx, node.JS.Conn(), batch("nowhere.a", "nowhere.b"), 5*time.Second)
	if sent || !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("batch to no stream: sent %v, %v; want not sent, no responders", sent, err)
	}
}
