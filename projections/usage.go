package projections

import (
	"context"
	"time"

	"tempmail"
	"tempmail/events"
)

// A tenant's mail against its quota: the messages its inboxes stored
// today (a UTC day) and the bytes they hold now. Like a tenant's
// inboxes (ti.), the counts are kept per partition, in the entry
//
//	tu.<tenantID>.<part>
//
// which the partition's worker writes as it applies its inboxes' mail,
// so that no entry has two writers; a reader sums the partitions. The
// day is the event's (MailReceived.ReceivedAt), so every node and every
// rebuild count the same; a partition's day count rolls when a reader
// finds its Day past (nothing is written at midnight) or when its next
// message comes.

// TenantUsage is one partition's share of a tenant's mail.
type TenantUsage struct {
	Meta
	// Day is the UTC day (2006-01-02) that Messages counts.
	Day      string `json:"day"`
	Messages int64  `json:"messages"`
	Bytes    int64  `json:"bytes"`
}

func (u *TenantUsage) clone() record { c := *u; return &c }

func tenantUsageKey(id, part string) string { return "tu." + id + "." + part }

// utcDay names the UTC day of at.
func utcDay(at time.Time) string { return at.UTC().Format(time.DateOnly) }

// MailUsage is a tenant's mail, summed over the partitions: the messages
// stored on the UTC day of now and the bytes stored.
type MailUsage struct {
	MessagesToday int64
	StorageBytes  int64
}

// TenantMailUsage returns a tenant's mail usage at now, one get per
// partition.
func (r *Reader) TenantMailUsage(ctx context.Context, tenantID string, now time.Time) (MailUsage, error) {
	var u MailUsage
	today := utcDay(now)
	for _, part := range r.parts {
		if part == events.SysPartition {
			continue
		}
		var p TenantUsage
		err := r.get(ctx, tenantUsageKey(tenantID, part), &p, "tenant's usage")
		switch {
		case tempmail.KindOf(err) == tempmail.NotFound:
			continue
		case err != nil:
			return MailUsage{}, err
		}
		if p.Day == today {
			u.MessagesToday += p.Messages
		}
		u.StorageBytes += p.Bytes
	}
	return u, nil
}

// countMail adds a message stored in a tenant's inbox at at to its
// partition's usage (size bytes, negative for mail gone; messages when
// it is not 0, to its day's). An event may count more than once (a
// message in, the oldest evicted); what an earlier attempt at the batch
// wrote, it does not count again: the entry is written before the inbox
// (writeRank), which is what tells that the event was applied.
func (t *tx) countMail(tenantID string, at time.Time, messages, size int64) error {
	u, us, err := load[TenantUsage](t, tenantUsageKey(tenantID, events.PartitionOf(t.subject)))
	if err != nil {
		return err
	}
	if t.applied(us) && !(us.changed && u.Seq == t.seq) {
		return nil
	}
	if !live(us) {
		*u = TenantUsage{Meta: *u.meta()}
	}
	if messages != 0 {
		if day := utcDay(at); day != u.Day {
			if day < u.Day {
				messages = 0 // a day past: it counts against none that is checked
			} else {
				u.Day, u.Messages = day, 0
			}
		}
		u.Messages += messages
	}
	u.Bytes = max(0, u.Bytes+size)
	t.save(us)
	return nil
}
