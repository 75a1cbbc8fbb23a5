package events

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/broker"
)

// CreateInbox claims ev.Address for a new inbox. lastLifecycleSeq is the
// sequence of the last event on the address's lifecycle subject (0 if it
// never had an inbox), which the views record: the claim succeeds only if
// nothing happened on the address since, so of two claims made from the same
// knowledge exactly one wins and the other gets an error of kind Conflict.
// The caller must claim only addresses the views show as free.
//
// An inbox with an expiry gets its InboxExpired scheduled first, which the
// server itself publishes when the time comes (a message schedule): it
// survives restarts, fires once in a cluster, and costs no loop. Scheduled
// before the claim, it cannot be missing for a created inbox. If the claim
// is refused, the schedule is withdrawn; if its outcome is unknown, the
// schedule stays, since the inbox may exist (the lone expiry of an inbox
// that never was is ignored by the views).
func (s *Store) CreateInbox(ctx context.Context, ev InboxCreated, lastLifecycleSeq uint64) (Ack, error) {
	part := s.PartitionOfAddress(ev.Address)
	lifecycle := inboxSubject(part, ev.Address)
	withdraw, err := s.scheduleExpiry(ctx, part, ev)
	if err != nil {
		return Ack{}, err
	}
	created, err := eventMsg(lifecycle, ev)
	if err != nil {
		return Ack{}, err
	}
	expect(withID(created, "inbox-"+ev.InboxID), lifecycle, lastLifecycleSeq)
	ack, err := s.publish(ctx, created)
	if broker.WrongLastSeq(err) {
		// The views may name a history the log no longer holds (an ended
		// inbox's events are purged): the subject itself says whether the
		// address is free, and since when.
		if seq, free := s.lifecycleFree(ctx, lifecycle); free && seq != lastLifecycleSeq {
			expect(created, lifecycle, seq)
			ack, err = s.publish(ctx, created)
		}
	}
	if err != nil && !IsUnknownOutcome(err) {
		s.withdraw(withdraw...)
	}
	if broker.WrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "address already taken")
	}
	return ack, err
}

// scheduleExpiry schedules a new inbox's InboxExpired, if it expires,
// and returns the schedule's subject, to withdraw should the claim be
// refused.
func (s *Store) scheduleExpiry(ctx context.Context, part string, ev InboxCreated) ([]string, error) {
	if ev.ExpiresAt.IsZero() {
		return nil, nil
	}
	subj := scheduleSubject(part, ev.Address, ev.InboxID, "expire")
	expiry, err := scheduleMsg(subj, inboxSubject(part, ev.Address), ev.ExpiresAt, InboxExpired{InboxID: ev.InboxID, Address: ev.Address})
	if err != nil {
		return nil, err
	}
	// On disk with the claim that follows, in the same stream.
	if _, err := s.write(ctx, withID(expiry, "expire-"+ev.InboxID)); err != nil {
		return nil, err
	}
	return []string{subj}, nil
}

// InboxLive reports whether the log says an inbox is live: the last event
// of its address's lifecycle is its creation. The views ask before they
// take an inbox whose entry they cannot find for one that ended (and
// forget the mail that arrived for it): a lagging or wrong read must not
// cost mail. Replicated, it asks the stream's leader.
func (s *Store) InboxLive(ctx context.Context, addr, inboxID string) (bool, error) {
	m, err := s.stream.GetLastMsgForSubject(ctx, inboxSubject(s.PartitionOfAddress(addr), addr))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false, nil // its history purged: ended long ago
	}
	if err != nil {
		return false, unavailable(err)
	}
	p, _, err := Decode(m.Data)
	if err != nil {
		return false, err
	}
	created, ok := p.(*InboxCreated)
	return ok && created.InboxID == inboxID, nil
}

// LiveInboxAt says which inbox the log says holds addr: the one whose
// creation is the last event of the address's lifecycle, and that
// event's sequence; "" when none (none made, or the last one ended). The
// views answer first; a recipient they do not know is looked up here
// before it is refused for good, because views that lag (on a node
// catching up after a fault) must not make a sender bounce mail to a live
// inbox. Replicated, it asks the stream's leader.
func (s *Store) LiveInboxAt(ctx context.Context, addr string) (inboxID string, ack Ack, err error) {
	part := s.PartitionOfAddress(addr)
	m, err := s.stream.GetLastMsgForSubject(ctx, inboxSubject(part, addr))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return "", Ack{}, nil
	}
	if err != nil {
		return "", Ack{}, unavailable(err)
	}
	p, _, err := Decode(m.Data)
	if err != nil {
		return "", Ack{}, err
	}
	if created, ok := p.(*InboxCreated); ok {
		return created.InboxID, Ack{Seq: m.Sequence, Partition: part}, nil
	}
	return "", Ack{}, nil
}

// lifecycleFree reads an address's lifecycle subject: it is free when it
// holds nothing (its history purged), or only the end of an inbox (an
// expiry that fired after the inbox was deleted and purged), and seq is
// what a claim must then expect. Anything more (a claim, or a history not
// yet purged) is for the views to judge once they catch up.
func (s *Store) lifecycleFree(ctx context.Context, lifecycle string) (seq uint64, free bool) {
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(lifecycle))
	if err != nil {
		return 0, false
	}
	switch info.State.Subjects[lifecycle] {
	case 0:
		return 0, true
	case 1:
		m, err := s.stream.GetLastMsgForSubject(ctx, lifecycle)
		if err != nil {
			return 0, false
		}
		p, _, err := Decode(m.Data)
		if err != nil {
			return 0, false
		}
		switch p.(type) {
		case *InboxDeleted, *InboxExpired:
			return m.Sequence, true
		}
	}
	return 0, false
}

// withdraw removes schedules that no stored event refers to, after a
// publish was refused. It is best effort: a schedule that stays fires an
// event the views ignore.
func (s *Store) withdraw(subjects ...string) {
	if len(subjects) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, subj := range subjects {
		_ = s.purgeSubject(ctx, subj)
	}
}

// EndInbox publishes an InboxDeleted for the inbox whose lifecycle subject
// was last at lifecycleSeq. If the inbox already ended, the error is of kind
// NotFound.
func (s *Store) EndInbox(ctx context.Context, addr string, p Payload, lifecycleSeq uint64) (Ack, error) {
	subj := inboxSubject(s.PartitionOfAddress(addr), addr)
	m, err := eventMsg(subj, p)
	if err != nil {
		return Ack{}, err
	}
	expect(withID(m, ""), subj, lifecycleSeq)
	ack, err := s.publish(ctx, m)
	if broker.WrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.NotFound, err, "inbox not found")
	}
	return ack, err
}

// AppendMessageEvent publishes a MarkedRead or Deleted for one message. Each
// is recorded once per message and kind within the dedupe window: a second
// deletion (an eviction and a user's, say) is the first one's duplicate.
func (s *Store) AppendMessageEvent(ctx context.Context, addr, inboxID, messageID string, p Payload) (Ack, error) {
	m, err := eventMsg(messagesSubject(s.PartitionOfAddress(addr), addr, inboxID), p)
	if err != nil {
		return Ack{}, err
	}
	return s.publish(ctx, withID(m, string(p.EventType())+"-"+messageID))
}

// CreateWebhook records a subscription. One of an inbox is recorded among
// the inbox's events only while the inbox lives: lifecycleSeq is its
// lifecycle subject's last sequence as the views show it, and if the inbox
// has ended since, the error is of kind NotFound. Caps on the number of
// subscriptions are the views' to enforce (they apply one event at a time).
// claim, when not nil, counts a subscription to a tenant's inbox against
// its quota: stored just before, in one atomic batch; then a refused
// expectation is of kind Conflict (the inbox ended, or the tenant's count
// moved on: the caller looks at both again).
func (s *Store) CreateWebhook(ctx context.Context, ev WebhookCreated, lifecycleSeq uint64, claim *Claim) (Ack, error) {
	subject, lifecycle := s.hookSubjects(ev.InboxID, ev.Address)
	if claim != nil {
		ev.ClaimBack = 1
	}
	m, err := eventMsg(subject, ev)
	if err != nil {
		return Ack{}, err
	}
	withID(m, "webhook-"+ev.WebhookID)
	if ev.InboxID != "" {
		expect(m, lifecycle, lifecycleSeq)
	}
	if claim != nil {
		return s.publishClaim(ctx, claim, "claim-webhook-"+ev.WebhookID, m)
	}
	ack, err := s.publish(ctx, m)
	if broker.WrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.NotFound, err, "inbox not found")
	}
	return ack, err
}

// DeleteWebhook ends a subscription.
func (s *Store) DeleteWebhook(ctx context.Context, ev WebhookDeleted) (Ack, error) {
	subject, _ := s.hookSubjects(ev.InboxID, ev.Address)
	m, err := eventMsg(subject, ev)
	if err != nil {
		return Ack{}, err
	}
	return s.publish(ctx, withID(m, "webhook-deleted-"+ev.WebhookID))
}

// RotateWebhookSecret records a subscription's new secret. Whether it
// still was a subscription when this is applied is for the views to say
// (a rotation of one deleted meanwhile changes nothing).
func (s *Store) RotateWebhookSecret(ctx context.Context, ev WebhookSecretRotated) (Ack, error) {
	subject, _ := s.hookSubjects(ev.InboxID, ev.Address)
	m, err := eventMsg(subject, ev)
	if err != nil {
		return Ack{}, err
	}
	return s.publish(ctx, withID(m, ""))
}

// hookSubjects returns where a subscription's events go and, for one of
// an inbox, the inbox's lifecycle subject.
func (s *Store) hookSubjects(inboxID, addr string) (subject, lifecycle string) {
	if inboxID == "" {
		return hooksSubject, ""
	}
	part := s.PartitionOfAddress(addr)
	return hooksOf(part, addr, inboxID), inboxSubject(part, addr)
}
