package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Purge makes a deletion final, once the views have applied it, and takes
// what is gone out of the log. For a Deleted message it erases the
// message's key, so that what the message said can no longer be read from
// any copy of its sealed content; then it purges the message's events and
// its retention schedule. For an inbox that ended (ended: the views found
// it live) it does that for every message of the inbox, and purges the
// inbox's subscriptions, its schedules, and its lifecycle events up to its
// end, seq. An InboxDeleted or InboxExpired that ended nothing (an expiry
// that fires after the inbox was deleted, or an ending applied again once
// the views no longer remember that it was this event that ended the
// inbox) does the same from what the log holds of the inbox, but takes
// from its address's lifecycle only the inbox's own events before seq: a
// newer inbox may have claimed the address since, and the views expect
// this very event as the lifecycle's last (claims and deliveries name it).
// For a deleted subscription it purges
// its events. Other events need nothing. Purging again is harmless, so a
// redelivered event may purge twice. progress, if not nil, is called after
// each message erased.
//
// Nothing waits for a grace period: the stream still recognises a retried
// delivery of a purged message by its Nats-Msg-Id for the dedupe window,
// and every reader goes through the views, which no longer show it.
func (s *Store) Purge(ctx context.Context, seq uint64, subject string, p Payload, ended bool, progress func()) error {
	switch ev := p.(type) {
	case *Deleted:
		part, addrKey, ok := splitSubject(subject)
		if !ok {
			return fmt.Errorf("purge: %q is not a message subject", subject)
		}
		if err := s.eraseMessage(ctx, subject); err != nil {
			return err
		}
		if err := s.keys.Flush(); err != nil {
			return err
		}
		if err := s.purgeSubject(ctx, subject); err != nil {
			return err
		}
		return s.purgeSubject(ctx, scheduleRoot+"."+part+"."+addrKey+"."+ev.InboxID+"."+ev.MessageID)
	case *InboxDeleted:
		return s.purgeInbox(ctx, seq, ev.Address, ev.InboxID, ended, progress)
	case *InboxExpired:
		return s.purgeInbox(ctx, seq, ev.Address, ev.InboxID, ended, progress)
	case *WebhookDeleted:
		return s.purgeSubject(ctx, subject)
	}
	return nil
}

// purgeInbox erases what an ended inbox's messages said and takes every
// event of the inbox out of the log: its messages', its subscriptions',
// and on its address's lifecycle subject those up to its end at seq (a
// newer inbox on the address keeps its own); or, unless it ended at seq,
// only its own before seq.
func (s *Store) purgeInbox(ctx context.Context, seq uint64, addr, inboxID string, ended bool, progress func()) error {
	part := s.PartitionOfAddress(addr)
	messages := messagesOf(part, addr, inboxID) + ".>"
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(messages))
	if err != nil {
		return unavailable(err)
	}
	for subject := range info.State.Subjects {
		if err := s.eraseMessage(ctx, subject); err != nil {
			return err
		}
		if progress != nil {
			progress()
		}
	}
	if err := s.keys.Flush(); err != nil {
		return err
	}
	for _, subject := range []string{messages, hooksOf(part, addr, inboxID) + ".>", schedulesOf(part, addr, inboxID) + ".>"} {
		if err := s.purgeSubject(ctx, subject); err != nil {
			return err
		}
	}
	lifecycle := inboxSubject(part, addr)
	if !ended {
		return s.deleteOwnLifecycle(ctx, seq, lifecycle, inboxID)
	}
	if err := s.stream.Purge(ctx, jetstream.WithPurgeSubject(lifecycle), jetstream.WithPurgeSequence(seq+1)); err != nil {
		s.CountError("purge")
		return unavailable(err)
	}
	return nil
}

// deleteOwnLifecycle deletes, among the events on an address's lifecycle
// subject before seq, those of the inbox inboxID: a handful at most. None
// is the subject's last, which claims and deliveries expect.
func (s *Store) deleteOwnLifecycle(ctx context.Context, seq uint64, lifecycle, inboxID string) error {
	for next := uint64(1); next < seq; {
		m, err := s.stream.GetMsg(ctx, next, jetstream.WithGetMsgSubject(lifecycle))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return unavailable(err)
		}
		if m.Sequence >= seq {
			return nil
		}
		next = m.Sequence + 1
		p, _, err := Decode(m.Data)
		if err != nil {
			return fmt.Errorf("purge %s: %w", lifecycle, err)
		}
		if inboxOf(p) != inboxID {
			continue
		}
		if err := s.stream.DeleteMsg(ctx, m.Sequence); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
			s.CountError("purge")
			return unavailable(err)
		}
	}
	return nil
}

// inboxOf names the inbox a lifecycle event is about.
func inboxOf(p Payload) string {
	switch ev := p.(type) {
	case *InboxCreated:
		return ev.InboxID
	case *InboxDeleted:
		return ev.InboxID
	case *InboxExpired:
		return ev.InboxID
	}
	return ""
}

// eraseMessage erases the content of the message whose events are on
// subject: its first event there is its MailReceived, which names its key
// and raw object.
func (s *Store) eraseMessage(ctx context.Context, subject string) error {
	m, err := s.stream.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(subject))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		return unavailable(err)
	}
	head, _, _ := bytes.Cut(m.Data, []byte("\n"))
	p, _, err := Decode(head)
	if err != nil {
		return fmt.Errorf("erase %s: %w", subject, err)
	}
	mr, ok := p.(*MailReceived)
	if !ok {
		return nil // a MarkedRead or Deleted of a message never received: nothing to erase
	}
	return s.eraseContent(ctx, mr.Key, mr.MessageID, mr.RawObject)
}

// eraseContent erases a message's key and removes its raw object.
func (s *Store) eraseContent(ctx context.Context, key uint64, messageID, object string) error {
	s.contents.remove(messageID)
	if err := s.keys.Erase(ctx, key, messageID); err != nil {
		s.CountError("purge")
		return err
	}
	if object == "" {
		return nil
	}
	if err := s.raw.Delete(ctx, object); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		s.CountError("purge")
		return unavailable(err)
	}
	return nil
}

func (s *Store) purgeSubject(ctx context.Context, subject string) error {
	if err := s.stream.Purge(ctx, jetstream.WithPurgeSubject(subject)); err != nil {
		s.CountError("purge")
		return unavailable(err)
	}
	return nil
}

// RawObjectName is where a message's raw bytes live when they do not travel
// inside its event: one object per recipient copy, so that deleting one copy
// never takes another's.
func RawObjectName(messageID string) string { return "msg/" + messageID }

// splitSubject returns the partition and address key of an event subject.
func splitSubject(subject string) (part, addrKey string, ok bool) {
	t := strings.Split(subject, ".")
	if len(t) < 3 || t[0] != subjectRoot {
		return "", "", false
	}
	return t[1], t[2], true
}
