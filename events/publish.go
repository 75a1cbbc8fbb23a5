package events

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"tempmail"
	"tempmail/broker"
	"tempmail/retry"
)

// Every write goes through publish (one message) or publishBatch (several,
// all or nothing). A publish whose answer does not come (a timeout, a lost
// connection) may have been stored all the same: it is not a failure but an
// unknown outcome. It is tried again, the same message under the same
// Nats-Msg-Id, so that the stream stores it at most once and its answer says
// where; only when the caller's time runs out first is the outcome still
// unknown, and then the caller must keep everything the message refers to
// (its key, its raw object, its schedules), because it may exist.

// ErrUnknownOutcome is in the chain of an error when a write was sent but
// never answered within the caller's time: it may or may not be stored.
var ErrUnknownOutcome = errors.New("the event store did not answer in time; the write may have been stored")

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
// the event p, on target.
func scheduleMsg(subject, target string, at time.Time, p Payload) (*nats.Msg, error) {
	data, err := Encode(p, at)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	m.Data = data
	broker.Schedule(m, target, at)
	return m, nil
}

// expect makes m conditional on subject's last sequence being seq.
func expect(m *nats.Msg, subject string, seq uint64) {
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(seq, 10))
	if subject != m.Subject {
		m.Header.Set(jetstream.ExpectedLastSubjSeqSubjHeader, subject)
	}
}

// withID gives m the id the stream deduplicates it by; messages without a
// natural one get a unique id, so that a retry of theirs is recognised too.
func withID(m *nats.Msg, id string) *nats.Msg {
	if id == "" {
		id = nuid.Next()
	}
	m.Header.Set(jetstream.MsgIDHeader, id)
	return m
}

// publish stores one message and returns once it is on disk (where the
// store promises that; see broker.Flusher), trying again while the outcome is
// unknown or the stream has no leader (a cluster electing one), until ctx
// ends. A refused expectation comes back as is (broker.WrongLastSeq); the
// outcome unknown at the end, wrapped with ErrUnknownOutcome; other
// failures as errors of kind Unavailable.
func (s *Store) publish(ctx context.Context, m *nats.Msg) (Ack, error) {
	ack, err := s.write(ctx, m)
	if err == nil {
		err = s.flushEvents(ctx, ack.Seq)
	}
	return ack, err
}

// flushEvents puts the event stream's writes through seq on disk; a
// failure leaves the write's outcome unknown (stored, perhaps not kept).
func (s *Store) flushEvents(ctx context.Context, seq uint64) error {
	if err := s.flusher.FlushThrough(ctx, StreamName, seq); err != nil {
		return unknown(err)
	}
	return nil
}

// write is publish without the flush, for a message that another's flush
// follows.
func (s *Store) write(ctx context.Context, m *nats.Msg) (Ack, error) {
	if m.Header.Get(jetstream.MsgIDHeader) == "" {
		withID(m, "")
	}
	unsure := false // an earlier try may have been stored
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, s.attemptTimeout)
		pa, err := s.js.PublishMsg(actx, m)
		cancel()
		switch {
		case err == nil:
			return Ack{Seq: pa.Sequence, Partition: PartitionOf(m.Subject), Duplicate: pa.Duplicate}, nil
		case broker.WrongLastSeq(err):
			if unsure {
				// The expectation held when the first try was sent; if
				// that try was stored, it is what changed the subject.
				if seq, ok := s.storedEarlier(ctx, m); ok {
					return Ack{Seq: seq, Partition: PartitionOf(m.Subject), Duplicate: true}, nil
				}
			}
			return Ack{}, err
		case errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse):
			// Nothing was stored: no stream leader took it.
		case broker.ErrorCode(err) == jsErrDuplicateInProcess:
			// An earlier try of this very message is being stored (a
			// leader that was paused, or just elected, still has it in
			// flight): its answer, a duplicate's, comes to a later try.
			unsure = true
		case isAPIError(err) && unsure:
			// Refused now, but an earlier try may be stored: the
			// outcome is unknown, and nothing the message refers to may
			// be discarded.
			s.CountError("publish")
			return Ack{}, unknown(err)
		case isAPIError(err):
			s.CountError("publish")
			return Ack{}, unavailable(err)
		default:
			unsure = true
		}
		if !retry.Publish.Sleep(ctx, attempt) {
			s.CountError("publish")
			if unsure {
				return Ack{}, unknown(err)
			}
			return Ack{}, unavailable(err)
		}
	}
}

// storedEarlier reports whether m itself (by its id) is the last message
// on its subject, and at which sequence.
func (s *Store) storedEarlier(ctx context.Context, m *nats.Msg) (uint64, bool) {
	last, err := s.stream.GetLastMsgForSubject(ctx, m.Subject)
	if err != nil || last.Header.Get(jetstream.MsgIDHeader) != m.Header.Get(jetstream.MsgIDHeader) {
		return 0, false
	}
	return last.Sequence, true
}

var errBatchDuplicate = errors.New("batch holds a message stored before")

// publishBatch stores several messages as one atomic batch
// (broker.PublishBatch). A batch holding a message stored before (its
// Nats-Msg-Id known) fails whole with errBatchDuplicate; the caller then
// stores its messages one by one, each deduplicated on its own. An
// unanswered commit is an unknown outcome: the caller must find out the
// same way.
func (s *Store) publishBatch(ctx context.Context, msgs []*nats.Msg) ([]Ack, error) {
	seq, sent, err := broker.PublishBatch(ctx, s.js.Conn(), msgs, s.attemptTimeout)
	var apiErr *jetstream.APIError
	switch {
	case err == nil:
	case !sent:
		s.CountError("publish")
		return nil, unavailable(err) // a batch without its commit is never stored
	case !errors.As(err, &apiErr):
		s.CountError("publish")
		return nil, unknown(err) // a commit sent and not answered may have been
	case broker.WrongLastSeq(apiErr):
		return nil, apiErr
	case apiErr.ErrorCode == jsErrBatchDuplicateMsgID || apiErr.ErrorCode == jsErrBatchIncomplete:
		// A message with a known Nats-Msg-Id is refused, or dropped
		// (leaving the batch incomplete): a retry of one stored.
		return nil, errBatchDuplicate
	case apiErr.ErrorCode == jsErrDuplicateInProcess:
		// A message of the batch is being stored by an earlier try:
		// what became of it, its own publish finds out.
		s.CountError("publish")
		return nil, unknown(apiErr)
	default:
		s.CountError("publish")
		return nil, unavailable(apiErr)
	}
	if err := s.flushEvents(ctx, seq); err != nil {
		return nil, err
	}
	acks := make([]Ack, len(msgs))
	for i, m := range msgs {
		acks[i] = Ack{Seq: seq - uint64(len(msgs)-1-i), Partition: PartitionOf(m.Subject)}
	}
	return acks, nil
}

// The server's "atomic publish batch contains duplicate message id" and
// "atomic publish batch is incomplete".
const (
	jsErrBatchDuplicateMsgID = 10201
	jsErrBatchIncomplete     = 10176
)

// jsErrDuplicateInProcess is the server's "duplicate message id is in
// process": a message with this Nats-Msg-Id was proposed and is not yet
// stored, or refused. Not a refusal of the message: it may well be stored.
const jsErrDuplicateInProcess = 10158

// isAPIError reports an answer of the JetStream API: the server took the
// request and refused it, so this request stored nothing.
func isAPIError(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode != 0
}

// unavailable is broker.Unavailable for the event store.
func unavailable(err error) error { return broker.Unavailable("the event store", err) }

// unknown marks err as an unknown outcome (ErrUnknownOutcome).
func unknown(err error) error {
	return tempmail.Wrap(tempmail.Unavailable, fmt.Errorf("%w: %w", ErrUnknownOutcome, err), "the event store did not answer; try again")
}

// IsUnknownOutcome reports whether err says a write may have been stored
// though it was not acknowledged.
func IsUnknownOutcome(err error) bool { return errors.Is(err, ErrUnknownOutcome) }
