package events

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Purge makes a deletion final in the log and the object store, once the
// views have applied it. For a Deleted message it removes the message's
// content record (the raw message when inline, the parsed bodies and
// headers), its raw object and its retention schedule; its events stay, as
// small tombstones that say nothing of what it said. For an ended inbox it
// does that for every message of the inbox, and drops the inbox's schedules.
// Other events need nothing. Purging again is harmless, so a redelivered
// event may purge twice.
func (s *Store) Purge(ctx context.Context, subject string, p Payload) error {
	switch ev := p.(type) {
	case *Deleted:
		part, addrKey, ok := splitSubject(subject)
		if !ok {
			return fmt.Errorf("purge: %q is not a message subject", subject)
		}
		tail := "." + part + "." + addrKey + "." + ev.InboxID + "." + ev.MessageID
		if err := s.purgeSubject(ctx, contentRoot+tail); err != nil {
			return err
		}
		if err := s.purgeSubject(ctx, scheduleRoot+tail); err != nil {
			return err
		}
		return s.deleteRaw(ctx, ev.MessageID)
	case *InboxDeleted:
		return s.purgeInbox(ctx, ev.Address, ev.InboxID)
	case *InboxExpired:
		return s.purgeInbox(ctx, ev.Address, ev.InboxID)
	}
	return nil
}

func (s *Store) purgeInbox(ctx context.Context, addr, inboxID string) error {
	part := s.PartitionOfAddress(addr)
	prefix := contentsOf(part, addr, inboxID)
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(prefix+".>"))
	if err != nil {
		return unavailable(err)
	}
	for subject := range info.State.Subjects {
		if err := s.deleteRaw(ctx, subject[strings.LastIndexByte(subject, '.')+1:]); err != nil {
			return err
		}
	}
	if err := s.purgeSubject(ctx, prefix+".>"); err != nil {
		return err
	}
	return s.purgeSubject(ctx, schedulesOf(part, addr, inboxID)+".>")
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

func (s *Store) deleteRaw(ctx context.Context, messageID string) error {
	err := s.raw.Delete(ctx, RawObjectName(messageID))
	if err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		s.CountError("purge")
		return unavailable(err)
	}
	return nil
}

// splitSubject returns the partition and address key of an event subject.
func splitSubject(subject string) (part, addrKey string, ok bool) {
	t := strings.Split(subject, ".")
	if len(t) < 3 || t[0] != subjectRoot {
		return "", "", false
	}
	return t[1], t[2], true
}
