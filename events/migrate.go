package events

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
)

// migrate brings a log of format 2 or 3 to format 4 (store.go), as the
// store is opened; it may run again, on several nodes at once, and does
// what is left. Before format 4, an expiring inbox of a tenant stopped
// counting against its quota at its expiry by the time alone: no event
// says so, and format 4 counts by events. So each claim of a tenant's
// inbox that expires (TenantInboxAdded) is looked at: the claim of an
// inbox no longer live leaves the log (its removal would never come), and
// a live one's removal is scheduled at its expiry, as CreateTenantInbox
// schedules it now.
func (s *Store) migrate(ctx context.Context) error {
	prefix := subjectRoot + "." + SysPartition + ".tenant."
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(prefix+"*"))
	if err != nil {
		return unavailable(err)
	}
	var tenants []string
	for subj := range info.State.Subjects {
		tenants = append(tenants, subj)
	}
	slices.Sort(tenants)
	for _, subj := range tenants {
		if err := s.migrateTenant(ctx, strings.TrimPrefix(subj, prefix)); err != nil {
			return err
		}
	}
	return nil
}

// migrateTenant looks at the claims of one tenant's expiring inboxes.
func (s *Store) migrateTenant(ctx context.Context, tenantID string) error {
	subj := tenantSubject(tenantID)
	for next := uint64(1); ; {
		m, err := s.stream.GetMsg(ctx, next, jetstream.WithGetMsgSubject(subj))
		if broker.MsgGone(err) {
			return nil
		}
		if err != nil {
			return unavailable(err)
		}
		next = m.Sequence + 1
		p, _, err := Decode(m.Data)
		if err != nil {
			return fmt.Errorf("tenant %s, event %d: %w", tenantID, m.Sequence, err)
		}
		added, ok := p.(*TenantInboxAdded)
		if !ok || added.ExpiresAt.IsZero() {
			continue
		}
		live, err := s.InboxLive(ctx, added.Address, added.InboxID)
		if err != nil {
			return err
		}
		if !live {
			if err := s.deleteSeqs(ctx, []uint64{m.Sequence}); err != nil {
				return err
			}
			continue
		}
		// Due already: in a second.
		at := added.ExpiresAt
		if soon := time.Now().Add(time.Second); at.Before(soon) {
			at = soon
		}
		if _, err := s.scheduleRemoval(ctx, tenantID, added.InboxID, at); err != nil {
			return err
		}
	}
}
