package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Two features of the server that nats.go has no helper for yet: message
// schedules (ADR-51), which the event log and the webhook outbox use for
// what must happen later, and atomic batches (ADR-50), which store several
// messages all or nothing.

// Schedule makes m a message schedule (ADR-51): the server keeps it until
// at and then publishes its data and headers on target, in the same
// stream. @at has whole seconds; rounding up means it never fires early.
func Schedule(m *nats.Msg, target string, at time.Time) {
	fire := at.UTC().Truncate(time.Second)
	if fire.Before(at) {
		fire = fire.Add(time.Second)
	}
	m.Header.Set("Nats-Schedule", "@at "+fire.Format(time.RFC3339))
	m.Header.Set("Nats-Schedule-Target", target)
}

// PublishBatch stores msgs as one atomic batch (ADR-50) and returns the
// sequence of the last: a batch's messages get consecutive sequences. Every
// message carries the batch id and its position, the last one commits and
// is answered with the batch's ack, within timeout. The messages are left
// as they came, without those headers, so that a caller may publish them
// again one by one.
//
// sent says the commit went out. When it did not (a message before it not
// sent, or nobody there to answer it), nothing is stored: the server drops
// a batch without its commit. When it did, an error is the server's
// refusal, a *jetstream.APIError, and nothing is stored; or the commit was
// not answered (or answered with what does not read as an ack), and the
// batch may have been stored.
func PublishBatch(ctx context.Context, nc *nats.Conn, msgs []*nats.Msg, timeout time.Duration) (seq uint64, sent bool, err error) {
	defer func() {
		for _, m := range msgs {
			for _, h := range []string{"Nats-Batch-Id", "Nats-Batch-Sequence", "Nats-Batch-Commit"} {
				m.Header.Del(h)
			}
		}
	}()
	batchID := nuid.Next()
	var reply *nats.Msg
	for i, m := range msgs {
		m.Header.Set("Nats-Batch-Id", batchID)
		m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		if i < len(msgs)-1 {
			if err := nc.PublishMsg(m); err != nil {
				return 0, false, err
			}
			continue
		}
		m.Header.Set("Nats-Batch-Commit", "1")
		rctx, cancel := context.WithTimeout(ctx, timeout)
		reply, err = nc.RequestMsgWithContext(rctx, m)
		cancel()
		if err != nil {
			return 0, !errors.Is(err, nats.ErrNoResponders), err
		}
	}
	var res struct {
		Seq   uint64 `json:"seq"`
		Error *struct {
			Code    int    `json:"err_code"`
			Message string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply.Data, &res); err != nil {
		return 0, true, fmt.Errorf("batch ack %q: %w", reply.Data, err)
	}
	if res.Error != nil {
		return 0, true, &jetstream.APIError{ErrorCode: jetstream.ErrorCode(res.Error.Code), Description: res.Error.Message}
	}
	return res.Seq, true, nil
}
