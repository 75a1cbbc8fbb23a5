package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
)

// Forget is what the views let go of, for the log to forget in its turn
// once the views no longer show it (Store.Forget): what deleted messages
// said, and the events of what is gone. The projection that applies the
// deletions says what they were; it never has to be read back from the
// log, except an ended inbox's messages, which its subjects hold.
type Forget struct {
	Messages []ForgetMessage `json:"messages,omitempty"`
	// Seqs are events that no view shows anything of: a deleted
	// subscription's, or an event about something already gone.
	Seqs    []uint64      `json:"seqs,omitempty"`
	Inboxes []ForgetInbox `json:"inboxes,omitempty"`
	// Claims are tenants' claims of what is gone (claims.go).
	Claims []ForgetClaim `json:"claims,omitempty"`
	// Tenants are deleted tenants, whose subjects leave the log.
	Tenants []string `json:"tenants,omitempty"`
	// Domains are deactivated domains, whose events leave the log.
	Domains []ForgetDomain `json:"domains,omitempty"`
}

// ForgetMessage is a deleted message: its content is erased (its key, and
// its raw object when it has one) and its events leave the log.
type ForgetMessage struct {
	ID        string   `json:"id"`
	InboxID   string   `json:"inbox_id"`
	Address   string   `json:"address"`
	Key       uint64   `json:"key"`
	RawObject string   `json:"raw_object,omitempty"`
	Seqs      []uint64 `json:"seqs"`               // its MailReceived, MarkedRead, Deleted
	Retained  bool     `json:"retained,omitempty"` // it has a retention schedule to withdraw
}

// ForgetInbox is an ended inbox: its messages' content is erased and all
// its events leave the log, its lifecycle up to its end at Seq. Ended is
// false for an ending that ended nothing (an expiry that fires after the
// inbox was deleted, or an ending applied again after the views forgot
// it): then a newer inbox may hold the address, and the lifecycle keeps
// its events (see purgeInbox).
type ForgetInbox struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	Seq     uint64 `json:"seq"`
	Ended   bool   `json:"ended,omitempty"`
}

// Empty reports whether there is nothing to forget.
func (f *Forget) Empty() bool { return f.Len() == 0 }

// Len is how many things f forgets.
func (f *Forget) Len() int {
	return len(f.Messages) + len(f.Seqs) + len(f.Inboxes) + len(f.Claims) + len(f.Tenants) + len(f.Domains)
}

// Add appends what g forgets to f.
func (f *Forget) Add(g Forget) {
	f.Messages = append(f.Messages, g.Messages...)
	f.Seqs = append(f.Seqs, g.Seqs...)
	f.Inboxes = append(f.Inboxes, g.Inboxes...)
	f.Claims = append(f.Claims, g.Claims...)
	f.Tenants = append(f.Tenants, g.Tenants...)
	f.Domains = append(f.Domains, g.Domains...)
}

// Forget makes deletions final: it erases the keys of deleted messages, so
// that what they said can no longer be read from any copy of their sealed
// content, removes their raw objects, and deletes their events (and the
// other events f names) from the log by sequence; for an ended inbox it
// does that for every message its subjects hold and purges its subjects.
// Forgetting again is harmless, so a batch applied again may forget
// twice. progress, if not nil, is called as it goes, for long work (an
// inbox of a thousand messages).
//
// through is the checkpoint of the partition whose views let f go
// (ForgetAll: no bound). The subjects f purges are that partition's, and
// lose their events up to through only: one stored there since has not
// reached the views yet, and leaves once they apply it (moot by then).
// Purged, it would never reach them, and the partition's checkpoint would
// stay short of its sequence: whoever waits for it (a command's
// read-your-writes, CaughtUp) would wait until some later event of the
// partition came. So it went with a deleted tenant's subject, which gets
// its inboxes' removals from its list as the deletion ends them, while
// the sys worker applies the deletion.
//
// Nothing waits for a grace period: the stream still recognises a retried
// delivery of a forgotten message by its Nats-Msg-Id for the dedupe
// window, the views by its print for the inbox's life, and every reader
// goes through the views, which no longer show it.
func (s *Store) Forget(ctx context.Context, f Forget, through uint64, progress func()) error {
	if f.Empty() {
		return nil
	}
	if progress == nil {
		progress = func() {}
	}
	for _, m := range f.Messages {
		if err := s.eraseContent(ctx, m.Key, m.ID, m.RawObject); err != nil {
			return err
		}
	}
	if len(f.Messages) > 0 {
		if err := s.keys.Flush(); err != nil {
			return err
		}
	}
	for _, m := range f.Messages {
		if err := s.deleteSeqs(ctx, m.Seqs); err != nil {
			return err
		}
		if m.Retained {
			// Schedules are no partition's events: nothing waits for them.
			part := s.PartitionOfAddress(m.Address)
			if err := s.purgeSubject(ctx, scheduleSubject(part, m.Address, m.InboxID, m.ID)); err != nil {
				return err
			}
		}
		progress()
	}
	if err := s.deleteSeqs(ctx, f.Seqs); err != nil {
		return err
	}
	for _, in := range f.Inboxes {
		if err := s.purgeInbox(ctx, in, through, progress); err != nil {
			return err
		}
	}
	if err := s.forgetClaims(ctx, f.Claims); err != nil {
		return err
	}
	for _, d := range f.Domains {
		if err := s.purgeDomain(ctx, d); err != nil {
			return err
		}
	}
	for _, id := range f.Tenants {
		if err := s.purgeTenant(ctx, id, through); err != nil {
			return err
		}
	}
	return nil
}

// deleteSeqs deletes events by sequence; one already gone is no error.
func (s *Store) deleteSeqs(ctx context.Context, seqs []uint64) error {
	for _, seq := range seqs {
		if seq == 0 {
			continue
		}
		err := s.stream.DeleteMsg(ctx, seq)
		if err != nil && !broker.MsgGone(err) {
			s.CountError("purge")
			return unavailable(err)
		}
	}
	return nil
}

// purgeInbox erases what an ended inbox's messages said and takes every
// event of the inbox out of the log: its messages', its subscriptions',
// its fault rules', its schedules, and on its address's lifecycle subject those up to its
// end at in.Seq (a newer inbox on the address keeps its own); or, unless
// it ended there, only its own before in.Seq. Subjects of a log written
// before format 3 (one per message and per subscription) go too.
func (s *Store) purgeInbox(ctx context.Context, in ForgetInbox, through uint64, progress func()) error {
	part := s.PartitionOfAddress(in.Address)
	messages := messagesSubject(part, in.Address, in.ID)
	if err := s.eraseInboxMessages(ctx, messages, through, progress); err != nil {
		return err
	}
	hooks := hooksOf(part, in.Address, in.ID)
	for _, subject := range []string{messages, messages + ".>", hooks, hooks + ".>", faultsOf(part, in.Address, in.ID)} {
		if err := s.purgeSubjectThrough(ctx, subject, through); err != nil {
			return err
		}
	}
	if err := s.purgeSubject(ctx, schedulesOf(part, in.Address, in.ID)+".>"); err != nil {
		return err
	}
	lifecycle := inboxSubject(part, in.Address)
	if !in.Ended {
		return s.deleteOwnLifecycle(ctx, in.Seq, lifecycle, in.ID)
	}
	if err := s.stream.Purge(ctx, jetstream.WithPurgeSubject(lifecycle), jetstream.WithPurgeSequence(in.Seq+1)); err != nil {
		s.CountError("purge")
		return unavailable(err)
	}
	return nil
}

// eraseInboxMessages erases the key of every message whose MailReceived
// is on the inbox's message subject (or, in a log of format 2, below it),
// up to through (Forget), and lets its tenant's claim of it leave the log.
func (s *Store) eraseInboxMessages(ctx context.Context, messages string, through uint64, progress func()) error {
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(messages+".>"))
	if err != nil {
		return unavailable(err)
	}
	subjects := []string{messages}
	for legacy := range info.State.Subjects {
		subjects = append(subjects, legacy)
	}
	slices.Sort(subjects[1:])
	for _, subject := range subjects {
		for next := uint64(1); ; {
			m, err := s.stream.GetMsg(ctx, next, jetstream.WithGetMsgSubject(subject))
			if broker.MsgGone(err) {
				break
			}
			if err != nil {
				return unavailable(err)
			}
			if m.Sequence > through {
				break // not applied yet: the views let it go when they apply it
			}
			next = m.Sequence + 1
			head, _, _ := bytes.Cut(m.Data, []byte("\n"))
			p, _, err := Decode(head)
			if err != nil {
				return fmt.Errorf("erase %s: %w", subject, err)
			}
			if mr, ok := p.(*MailReceived); ok {
				if err := s.eraseContent(ctx, mr.Key, mr.MessageID, mr.RawObject); err != nil {
					return err
				}
				if mr.ClaimBack > 0 && mr.ClaimBack < m.Sequence {
					// Its tenant's claim of it goes with it.
					claim := ForgetClaim{Seq: m.Sequence - mr.ClaimBack, Type: TypeMailClaimed, ID: mr.MessageID}
					if err := s.forgetClaims(ctx, []ForgetClaim{claim}); err != nil {
						return err
					}
				}
				progress()
			}
		}
	}
	return s.keys.Flush()
}

// deleteOwnLifecycle deletes, among the events on an address's lifecycle
// subject before seq, those of the inbox inboxID: a handful at most. None
// is the subject's last, which claims and deliveries expect.
func (s *Store) deleteOwnLifecycle(ctx context.Context, seq uint64, lifecycle, inboxID string) error {
	for next := uint64(1); next < seq; {
		m, err := s.stream.GetMsg(ctx, next, jetstream.WithGetMsgSubject(lifecycle))
		if broker.MsgGone(err) {
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
		if err := s.stream.DeleteMsg(ctx, m.Sequence); err != nil && !broker.MsgGone(err) {
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

// eraseContent erases a message's key and removes its raw object.
func (s *Store) eraseContent(ctx context.Context, key uint64, messageID, object string) error {
	s.contents.Remove(messageID)
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

// ForgetAll is Forget's bound for forgetting what no partition's views
// are to apply any more of: everything the subjects hold.
const ForgetAll = math.MaxUint64

// purgeSubjectThrough takes a subject's events up to through out of the
// log (through ForgetAll: all of them).
func (s *Store) purgeSubjectThrough(ctx context.Context, subject string, through uint64) error {
	if through == ForgetAll {
		return s.purgeSubject(ctx, subject)
	}
	if err := s.stream.Purge(ctx, jetstream.WithPurgeSubject(subject), jetstream.WithPurgeSequence(through+1)); err != nil {
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
