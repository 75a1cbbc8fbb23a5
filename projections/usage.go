package projections

import (
	"context"
	"time"

	"tempmail"
	"tempmail/events"
)

// A tenant's use of its quotas beyond inboxes: the messages its inboxes
// hold that came today (a UTC day), the bytes they hold, and the
// subscriptions to them. Like a tenant's inboxes (ti.), the counts are
// kept per partition, in the entry
//
//	tu.<tenantID>.<part>
//
// which the partition's worker writes as it applies its inboxes' mail and
// subscriptions, so that no entry has two writers; a reader sums the
// partitions. The day is the message's (MailReceived.ReceivedAt), so
// every node and every rebuild count the same; a partition's day count
// rolls when a reader finds its Day past (nothing is written at midnight)
// or when its next message comes. A message deleted stops counting, today
// too: the log forgets it, and the counts are what a rebuild finds.

// TenantUsage is one partition's share of a tenant's mail.
type TenantUsage struct {
	Meta
	// Day is the UTC day (2006-01-02) that Messages counts.
	Day      string `json:"day"`
	Messages int64  `json:"messages"`
	Bytes    int64  `json:"bytes"`
	// Webhooks counts the subscriptions to its inboxes.
	Webhooks int64 `json:"webhooks,omitempty"`
}

func (u *TenantUsage) clone() record { c := *u; return &c }

func tenantUsageKey(id, part string) string { return "tu." + id + "." + part }

// utcDay names the UTC day of at.
func utcDay(at time.Time) string { return at.UTC().Format(time.DateOnly) }

// received counts a message of size bytes received at at into a tenant's
// inbox and its tenant's usage.
func (t *tx) received(in *Inbox, at time.Time, size int64) error {
	day := utcDay(at)
	switch {
	case day > in.MailDay:
		in.MailDay, in.MailToday = day, 1
	case day == in.MailDay:
		in.MailToday++
	}
	in.Bytes += size
	return t.countMail(in.TenantID, day, 1, size)
}

// dropped counts a message of a tenant's inbox out, gone by this event.
func (t *tx) dropped(in *Inbox, s *Summary) error {
	day := utcDay(s.ReceivedAt)
	if day == in.MailDay {
		in.MailToday = max(0, in.MailToday-1)
	}
	if in.MailToday == 0 {
		in.MailDay = "" // as a rebuild, which finds none of the day, leaves it
	}
	in.Bytes = max(0, in.Bytes-s.Size)
	return t.countMail(in.TenantID, day, -1, -s.Size)
}

// Usage is a tenant's use, summed over the partitions: the messages its
// inboxes hold that came on the UTC day of now, the bytes they hold, and
// the subscriptions to them.
type Usage struct {
	MessagesToday int64
	StorageBytes  int64
	Webhooks      int64
}

// Usage returns a tenant's usage at now, one get per partition.
func (r *Reader) Usage(ctx context.Context, tenantID string, now time.Time) (Usage, error) {
	var u Usage
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
			return Usage{}, err
		}
		if p.Day == today {
			u.MessagesToday += p.Messages
		}
		u.StorageBytes += p.Bytes
		u.Webhooks += p.Webhooks
	}
	return u, nil
}

// countMail adds messages received on day (negative: gone) and size
// bytes to a tenant's usage in the event's partition. Messages of a day
// before the entry's count against none; mail gone counts out of the
// entry's day only if it came that day.
func (t *tx) countMail(tenantID, day string, messages, size int64) error {
	u, us, err := t.usage(tenantID)
	if err != nil || u == nil {
		return err
	}
	switch {
	case messages > 0 && day > u.Day:
		u.Day, u.Messages = day, messages
	case day == u.Day:
		u.Messages = max(0, u.Messages+messages)
	}
	if u.Messages == 0 {
		u.Day = ""
	}
	u.Bytes = max(0, u.Bytes+size)
	t.keep(u, us)
	return nil
}

// countWebhooks adds n subscriptions (negative: ended) to those of a
// tenant's inboxes in the partition.
func (t *tx) countWebhooks(tenantID string, n int64) error {
	u, us, err := t.usage(tenantID)
	if err != nil || u == nil {
		return err
	}
	u.Webhooks = max(0, u.Webhooks+n)
	t.keep(u, us)
	return nil
}

// keep saves a tenant's usage, or removes it when it counts nothing: a
// rebuild, which replays none of what was deleted, finds no entry there.
func (t *tx) keep(u *TenantUsage, us *staged) {
	if u.Messages == 0 && u.Bytes == 0 && u.Webhooks == 0 {
		t.remove(us)
		return
	}
	t.save(us)
}

// usage loads a tenant's usage in the event's partition, or nil when
// this event is counted in it already. An event may count more than once
// (a message in, the oldest evicted); what an earlier attempt at the
// batch wrote, it does not count again: the entry is written before the
// inbox (writeRank), which is what tells that the event was applied.
func (t *tx) usage(tenantID string) (*TenantUsage, *staged, error) {
	u, us, err := load[TenantUsage](t, tenantUsageKey(tenantID, events.PartitionOf(t.subject)))
	if err != nil {
		return nil, nil, err
	}
	if t.applied(us) && !(us.changed && u.Seq == t.seq) {
		return nil, nil, nil
	}
	if !live(us) {
		*u = TenantUsage{Meta: *u.meta()}
	}
	return u, us, nil
}
