package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/broker"
	"tempmail/mailbox"
	"tempmail/sealed"
)

// InlineRawMax is the largest raw message that travels sealed inside its
// MailReceived; a larger one goes to the object store first, sealed under
// the same key. Small messages are the common case, and one publish is much
// cheaper than an object-store put and a publish.
const InlineRawMax = 64 << 10

// Copy is one recipient's copy of a received message, to be stored.
type Copy struct {
	Mail         MailReceived // with its Content, Raw the whole message
	LifecycleSeq uint64       // the last event on the recipient inbox's lifecycle subject
	DedupeID     string       // same bytes to the same inbox: same id
	RetainUntil  time.Time    // when set, the copy is deleted then (mailbox.RetainMessages)
	// Claim, when set, claims the copy against its tenant's quota
	// (MailClaimed, claims.go): stored just before it, in the same batch.
	Claim *Claim
}

// sealedCopy is a Copy ready to publish: its key made, its content
// sealed, its raw object stored.
type sealedCopy struct {
	d      *Copy
	event  *nats.Msg
	sched  *nats.Msg // nil: no retention
	claim  *nats.Msg // nil: not claimed
	object string    // the raw object, when the message is large
}

// prepare seals each copy, and puts on disk what their events will name
// before them: their keys, the large messages' raw objects, and their
// retention schedules. On failure, nothing of them is left.
func (s *Store) prepare(ctx context.Context, ds []Copy) ([]*sealedCopy, error) {
	copies := make([]*sealedCopy, 0, len(ds))
	for i := range ds {
		c, err := s.seal(ctx, &ds[i])
		if err != nil {
			s.discard(copies...)
			return nil, err
		}
		copies = append(copies, c)
	}
	flush := []string(nil)
	for _, c := range copies {
		if c.object != "" {
			flush = []string{rawStream}
		}
	}
	if err := s.flusher.FlushFiles(ctx, flush...); err != nil {
		s.discard(copies...)
		return nil, err
	}
	for _, c := range copies {
		if c.sched == nil {
			continue
		}
		// On disk with the event that follows, in the same stream.
		if _, err := s.write(ctx, c.sched); err != nil {
			s.discard(copies...) // no event is stored yet
			return nil, err
		}
	}
	return copies, nil
}

// AppendMail stores every recipient's copy of one message: its MailReceived
// with the content sealed inside (and, for a large message, the sealed raw
// source in the object store), and the retention schedule some copies
// carry. Several copies are stored as one atomic batch. With --sync
// always, the keys the copies are sealed under are on disk before their
// events are stored, and the events before AppendMail returns (in rounds
// shared with other deliveries, broker/flush.go). Each copy expects its
// inbox's lifecycle subject unchanged; if an inbox ended meanwhile,
// nothing is stored and the error is of kind NotFound (the caller may
// retry without it). A retry of copies already stored returns their acks
// with Duplicate set and the stored message ids.
//
// When the outcome is unknown (IsUnknownOutcome) every key and object stays:
// a stored event may refer to them. Otherwise what no stored event refers
// to is erased before AppendMail returns.
func (s *Store) AppendMail(ctx context.Context, ds []Copy) ([]Ack, error) {
	copies, err := s.prepare(ctx, ds)
	if err != nil {
		return nil, err
	}
	if len(copies) == 1 && copies[0].claim == nil {
		ack, err := s.publishCopy(ctx, copies[0])
		if err != nil {
			return nil, err
		}
		return []Ack{ack}, nil
	}
	var msgs []*nats.Msg
	var at []int // where each copy's event is among msgs
	for _, c := range copies {
		if c.claim != nil {
			msgs = append(msgs, c.claim)
		}
		at, msgs = append(at, len(msgs)), append(msgs, c.event)
	}
	all, err := s.publishBatch(ctx, msgs)
	switch {
	case err == nil:
		acks := make([]Ack, len(copies))
		for i, c := range copies {
			acks[i] = all[at[i]]
			acks[i].MessageID = c.d.Mail.MessageID
		}
		return acks, nil
	case errors.Is(err, errBatchDuplicate) || IsUnknownOutcome(err):
		// Some copies were stored before (a retry of the message, perhaps
		// to other recipients), or the batch's outcome is unknown: each
		// copy goes on its own (with its claim), deduplicated by its id,
		// which tells which are stored. A copy whose inbox ended meanwhile
		// fails alone; the caller retries without it, and the others are
		// then duplicates. A claim goes without its expectation here: the
		// batch that set it may be the one stored.
		acks := make([]Ack, 0, len(copies))
		for _, c := range copies {
			ack, err := s.publishClaimedCopy(ctx, c)
			if err != nil {
				return nil, err
			}
			acks = append(acks, ack)
		}
		return acks, nil
	case broker.WrongLastSeq(err):
		s.discard(copies...)
		if slices.ContainsFunc(copies, func(c *sealedCopy) bool { return c.claim != nil }) {
			// Which expectation the stream refused it does not say: an
			// inbox that ended, or a tenant whose count moved on. The
			// caller looks at both again.
			return nil, tempmail.Wrap(tempmail.Conflict, err, "an inbox ended, or its tenant's count changed, concurrently")
		}
		return nil, tempmail.Wrap(tempmail.NotFound, err, "inbox not found or expired")
	default:
		s.discard(copies...)
		return nil, err
	}
}

// publishClaimedCopy is publishCopy for a copy that may have a claim: the
// two as one atomic batch, found stored when it was (its copy then a
// duplicate of itself).
func (s *Store) publishClaimedCopy(ctx context.Context, c *sealedCopy) (Ack, error) {
	if c.claim == nil {
		return s.publishCopy(ctx, c)
	}
	c.claim.Header.Del(jetstream.ExpectedLastSubjSeqHeader)
	c.claim.Header.Del(jetstream.ExpectedLastSubjSeqSubjHeader)
	acks, err := s.publishBatch(ctx, []*nats.Msg{c.claim, c.event})
	switch {
	case err == nil:
		acks[1].MessageID = c.d.Mail.MessageID
		return acks[1], nil
	case errors.Is(err, errBatchDuplicate):
		return s.publishCopy(ctx, c) // stored before: its event says where
	case broker.WrongLastSeq(err):
		s.discard(c)
		return Ack{}, tempmail.Wrap(tempmail.NotFound, err, "inbox not found or expired")
	case IsUnknownOutcome(err):
		return Ack{}, err
	}
	s.discard(c)
	return Ack{}, err
}

// seal prepares one copy: its key, its sealed content, and for a large
// message its sealed raw source in the object store.
func (s *Store) seal(ctx context.Context, d *Copy) (*sealedCopy, error) {
	m := &d.Mail
	ref, key, err := s.keys.New(ctx, m.MessageID)
	if err != nil {
		return nil, err
	}
	m.Key = ref
	c := &sealedCopy{d: d}
	content := m.Content
	if len(content.Raw) > InlineRawMax {
		c.object = RawObjectName(m.MessageID)
		_, err := s.raw.Put(ctx, jetstream.ObjectMeta{Name: c.object}, sealed.NewReader(key, m.MessageID, content.Raw))
		if err != nil {
			s.discard(c)
			return nil, tempmail.Wrap(tempmail.Unavailable, err, "could not store the message")
		}
		m.RawObject, content.Raw = c.object, nil
	}
	if m.Sealed, err = sealed.Seal(key, m.MessageID, content); err != nil {
		s.discard(c)
		return nil, err
	}
	part := s.PartitionOfAddress(m.Address)
	if d.Claim != nil {
		m.ClaimBack = 1
		if c.claim, err = claimMsg(d.Claim, "claim-"+d.DedupeID); err != nil {
			s.discard(c)
			return nil, err
		}
	}
	if c.event, err = eventMsg(messagesSubject(part, m.Address, m.InboxID), m); err != nil {
		s.discard(c)
		return nil, err
	}
	expect(withID(c.event, d.DedupeID), inboxSubject(part, m.Address), d.LifecycleSeq)
	if !d.RetainUntil.IsZero() {
		c.sched, err = scheduleMsg(scheduleSubject(part, m.Address, m.InboxID, m.MessageID), c.event.Subject,
			d.RetainUntil, Deleted{InboxID: m.InboxID, MessageID: m.MessageID, Reason: mailbox.ReasonRetention})
		if err != nil {
			s.discard(c)
			return nil, err
		}
		withID(c.sched, "retain-"+m.MessageID)
	}
	return c, nil
}

// publishCopy publishes one copy's MailReceived and says what happened to
// it: stored now (or by an earlier try of this very call), or found stored
// by an earlier delivery of the same bytes (Duplicate, with that copy's id,
// this one's key and object erased).
func (s *Store) publishCopy(ctx context.Context, c *sealedCopy) (Ack, error) {
	id := c.d.Mail.MessageID
	ack, err := s.publish(ctx, c.event)
	switch {
	case IsUnknownOutcome(err):
		return Ack{}, err // keep everything: it may be stored
	case broker.WrongLastSeq(err):
		s.discard(c)
		return Ack{}, tempmail.Wrap(tempmail.NotFound, err, "inbox not found or expired")
	case err != nil:
		s.discard(c)
		return Ack{}, err
	}
	ack.MessageID = id
	if !ack.Duplicate {
		return ack, nil
	}
	stored, err := s.storedMessageID(ctx, ack.Seq)
	if err != nil {
		return Ack{}, err // stored for sure; which copy is unknown, so nothing is erased
	}
	if stored == id {
		ack.Duplicate = false // an earlier try of this very copy
		return ack, nil
	}
	s.discard(c)
	ack.MessageID = stored
	return ack, nil
}

// discard erases what copies no stored event refers to: their keys (and so
// their sealed content, wherever it lies), their raw objects, their
// retention schedules. It is best effort: what stays is sealed under an
// erased key, or an object or schedule nothing shows.
func (s *Store) discard(copies ...*sealedCopy) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range copies {
		m := &c.d.Mail
		_ = s.eraseContent(ctx, m.Key, m.MessageID, c.object)
		if c.sched != nil {
			_ = s.purgeSubject(ctx, c.sched.Subject)
		}
	}
	_ = s.keys.Flush()
}

// storedMessageID reads the message id of the MailReceived at seq.
func (s *Store) storedMessageID(ctx context.Context, seq uint64) (string, error) {
	m, err := s.stream.GetMsg(ctx, seq)
	if err != nil {
		return "", unavailable(err)
	}
	head, _, _ := bytes.Cut(m.Data, []byte("\n"))
	p, _, err := Decode(head)
	if err != nil {
		return "", err
	}
	mr, ok := p.(*MailReceived)
	if !ok {
		return "", fmt.Errorf("event %d is a %s, not the MailReceived it was deduplicated against", seq, p.EventType())
	}
	return mr.MessageID, nil
}
