package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"tempmail"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

func eventMsg(subject string, p Payload) (*nats.Msg, error) {
	data, err := Encode(p, time.Now())
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	m.Data = data
	return m, nil
}

// scheduleMsg is a message the server keeps until at and then publishes, as
// the event p, on target (ADR-51). @at has whole seconds; rounding up means
// it never fires early.
func scheduleMsg(subject, target string, at time.Time, p Payload) (*nats.Msg, error) {
	data, err := Encode(p, at)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	m.Data = data
	fire := at.UTC().Truncate(time.Second)
	if fire.Before(at) {
		fire = fire.Add(time.Second)
	}
	m.Header.Set("Nats-Schedule", "@at "+fire.Format(time.RFC3339))
	m.Header.Set("Nats-Schedule-Target", target)
	return m, nil
}

// expect makes m conditional on subject's last sequence being seq.
func expect(m *nats.Msg, subject string, seq uint64) {
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(seq, 10))
	if subject != m.Subject {
		m.Header.Set(jetstream.ExpectedLastSubjSeqSubjHeader, subject)
	}
}

func first(acks []Ack) Ack {
	if len(acks) == 0 {
		return Ack{}
	}
	return acks[0]
}

var errBatchDuplicate = errors.New("batch holds a message stored before")

// publishMsgs publishes one message, or several as one atomic batch (ADR-50):
// every message carries the batch id and its position, the last one commits
// and is answered with the batch's ack; nats.go has no helper for it yet. A
// failed expectation comes back as is (isWrongLastSeq); other failures as
// errors of kind Unavailable.
func (s *Store) publishMsgs(ctx context.Context, msgs ...*nats.Msg) ([]Ack, error) {
	if len(msgs) == 1 {
		for _, h := range []string{"Nats-Batch-Id", "Nats-Batch-Sequence", "Nats-Batch-Commit"} {
			msgs[0].Header.Del(h) // left by a batch this message was part of
		}
		// No responders means no stream leader, as while a cluster elects
		// a new one (a few seconds after a node dies): nothing was stored,
		// so trying again is safe, and spares the caller a 503.
		pa, err := s.js.PublishMsg(ctx, msgs[0], jetstream.WithRetryAttempts(12), jetstream.WithRetryWait(250*time.Millisecond))
		if err != nil {
			if isWrongLastSeq(err) {
				return nil, err
			}
			s.CountError("publish")
			return nil, unavailable(err)
		}
		return []Ack{{Seq: pa.Sequence, Partition: PartitionOf(msgs[0].Subject), Duplicate: pa.Duplicate}}, nil
	}
	nc := s.js.Conn()
	batchID := nuid.Next()
	var reply *nats.Msg
	for i, m := range msgs {
		m.Header.Set("Nats-Batch-Id", batchID)
		m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		var err error
		if i < len(msgs)-1 {
			err = nc.PublishMsg(m)
		} else {
			m.Header.Set("Nats-Batch-Commit", "1")
			reply, err = nc.RequestMsgWithContext(ctx, m)
		}
		if err != nil {
			s.CountError("publish")
			return nil, unavailable(err)
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
		s.CountError("publish")
		return nil, unavailable(fmt.Errorf("batch ack %q: %w", reply.Data, err))
	}
	if res.Error != nil {
		apiErr := &jetstream.APIError{ErrorCode: jetstream.ErrorCode(res.Error.Code), Description: res.Error.Message}
		switch {
		case isWrongLastSeq(apiErr):
			return nil, apiErr
		case res.Error.Code == jsErrBatchDuplicateMsgID || res.Error.Code == jsErrBatchIncomplete:
			// A message with a known Nats-Msg-Id is refused, or dropped
			// (leaving the batch incomplete): a retry of one stored.
			return nil, errBatchDuplicate
		}
		s.CountError("publish")
		return nil, unavailable(apiErr)
	}
	// A batch's messages get consecutive sequences ending at Seq.
	acks := make([]Ack, len(msgs))
	for i, m := range msgs {
		acks[i] = Ack{Seq: res.Seq - uint64(len(msgs)-1-i), Partition: PartitionOf(m.Subject)}
	}
	return acks, nil
}

// The server's "atomic publish batch contains duplicate message id" and
// "atomic publish batch is incomplete".
const (
	jsErrBatchDuplicateMsgID = 10201
	jsErrBatchIncomplete     = 10176
)

// isWrongLastSeq reports a failed expected-sequence check: 10071 on a single
// node, 10164 on replicated streams.
func isWrongLastSeq(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

func unavailable(err error) error {
	return tempmail.Wrap(tempmail.Unavailable, err, "the event store is unavailable; try again")
}
