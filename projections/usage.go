package projections

import (
	"context"
	"time"

	"tempmail"
	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections/engine"
)

// A tenant's use of its quotas beyond inboxes: the messages its inboxes
// hold that came today (a UTC day), the bytes they hold, and the
// subscriptions to them. Mail and subscriptions live in their inboxes'
// partitions, so each partition keeps the tenant's share in the entry
//
//	tu.<tenantID>.<part>
//
// which the partition's worker writes as it applies its inboxes' mail and
// subscriptions, so that no entry has two writers; a reader sums the
// partitions. It holds three things:
//
//   - what the tenant's inboxes hold there now (Day, Messages, Bytes,
//     Webhooks): what GET /api/usage/ shows;
//   - Released: what ended there of what the tenant's claims counted
//     (events/claims.go), which only grows: a claim check subtracts it
//     from what the tenant's claims add up to (Tenant.Claimed);
//   - Unclaimed: what its inboxes hold there that no claim counted (mail
//     that came while the tenant had no mail quota, subscriptions made
//     before claims were).
//
// A claim and what it claimed leave the log together, and so do what
// ended and its release: a rebuild finds the same held counts, with
// claims and releases both smaller by what ended.
//
// The day is the message's (MailReceived.ReceivedAt), so every node and
// every rebuild count the same; a day's count rolls when a reader finds
// its Day past (nothing is written at midnight) or when its next message
// comes. A message deleted stops counting, today too.

func tenantUsageKey(id, part string) string { return "tu." + id + "." + part }

// utcDay names the UTC day of at.
func utcDay(at time.Time) string { return at.UTC().Format(time.DateOnly) }

// received counts a message of size bytes received at at into a tenant's
// inbox and its tenant's usage; claimed: a claim counted it.
func (t *tx) received(in *Inbox, at time.Time, size int64, claimed bool) error {
	day := utcDay(at)
	in.Held.Add(day, size)
	if claimed {
		in.Claimed.Add(day, size)
	}
	return t.countMail(in.TenantID, day, 1, size, claimed)
}

// dropped counts a message of a tenant's inbox out, gone by this event.
func (t *tx) dropped(in *Inbox, s *Summary) error {
	day := utcDay(s.ReceivedAt)
	in.Held.Sub(day, s.Size)
	if s.ClaimSeq != 0 {
		in.Claimed.Sub(day, s.Size)
	}
	return t.countMail(in.TenantID, day, -1, -s.Size, s.ClaimSeq != 0)
}

// inboxGone counts what an ended inbox of a tenant held out: its messages
// (those claimed as released) and its subscriptions.
func (t *tx) inboxGone(in *Inbox) error {
	u, us, err := t.usage(in.TenantID)
	if err != nil || u == nil {
		return err
	}
	unclaimed := Claims{Bytes: in.Held.Bytes - in.Claimed.Bytes}
	if in.Held.Day == in.Claimed.Day {
		unclaimed.Day, unclaimed.Messages = in.Held.Day, in.Held.Messages-in.Claimed.Messages
	} else {
		unclaimed.Day, unclaimed.Messages = in.Held.Day, in.Held.Messages
	}
	u.Hold(in.Held.Day, -in.Held.Messages, -in.Held.Bytes)
	u.Released.Bytes += in.Claimed.Bytes
	if in.Claimed.Messages > 0 {
		u.Released.AddDay(in.Claimed.Day, in.Claimed.Messages)
	}
	u.Unclaimed.Bytes = max(0, u.Unclaimed.Bytes-unclaimed.Bytes)
	if unclaimed.Day == u.Unclaimed.Day {
		u.Unclaimed.Messages = max(0, u.Unclaimed.Messages-unclaimed.Messages)
	}
	for _, h := range in.Webhooks {
		u.Webhooks = max(0, u.Webhooks-1)
		if h.Claimed {
			u.Released.Webhooks++
		} else {
			u.Unclaimed.Webhooks = max(0, u.Unclaimed.Webhooks-1)
		}
	}
	t.keep(u, us)
	return nil
}

// Usage returns a tenant's usage at now, as its inboxes hold it: one get
// per partition.
func (r *Reader) Usage(ctx context.Context, tenantID string, now time.Time) (mailbox.Usage, error) {
	var u mailbox.Usage
	today := utcDay(now)
	err := r.eachUsage(ctx, tenantID, func(p *TenantUsage) {
		if p.Day == today {
			u.MessagesToday += p.Messages
		}
		u.StorageBytes += p.Bytes
		u.Webhooks += p.Webhooks
	})
	return u, err
}

// Claimed returns what a tenant's quota counts now, for a claim to be
// checked against: what its claims add up to (tn, as of its last event),
// less what ended of them since, plus what its inboxes hold that no claim
// counted. A partition read before its latest release makes the count
// higher, never lower: a claim checked against it may be refused early,
// never let past the quota.
func (r *Reader) Claimed(ctx context.Context, tn *Tenant, now time.Time) (mailbox.Usage, error) {
	today := utcDay(now)
	u := mailbox.Usage{MessagesToday: tn.Claimed.Today(today), StorageBytes: tn.Claimed.Bytes, Webhooks: tn.Claimed.Webhooks}
	err := r.eachUsage(ctx, tn.ID, func(p *TenantUsage) {
		u.MessagesToday += p.Unclaimed.Today(today) - p.Released.Today(today)
		u.StorageBytes += p.Unclaimed.Bytes - p.Released.Bytes
		u.Webhooks += p.Unclaimed.Webhooks - p.Released.Webhooks
	})
	u.MessagesToday, u.StorageBytes, u.Webhooks = max(0, u.MessagesToday), max(0, u.StorageBytes), max(0, u.Webhooks)
	return u, err
}

func (r *Reader) eachUsage(ctx context.Context, tenantID string, each func(*TenantUsage)) error {
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
			return err
		}
		each(&p)
	}
	return nil
}

// countMail adds messages received on day (negative: gone) and size
// bytes to a tenant's usage in the event's partition: what its inboxes
// hold, and, for a message gone, what a claim counted of it as released
// or what no claim did as unclaimed no more.
func (t *tx) countMail(tenantID, day string, messages, size int64, claimed bool) error {
	u, us, err := t.usage(tenantID)
	if err != nil || u == nil {
		return err
	}
	u.Hold(day, messages, size)
	switch {
	case messages < 0 && claimed:
		u.Released.Add(day, -size)
	case messages < 0:
		u.Unclaimed.Sub(day, -size)
	case !claimed:
		u.Unclaimed.Add(day, size)
	}
	t.keep(u, us)
	return nil
}

// countWebhook adds a subscription (n 1) or ends one (n -1) of a
// tenant's inbox in the partition; claimed: a claim counted it.
func (t *tx) countWebhook(tenantID string, n int64, claimed bool) error {
	u, us, err := t.usage(tenantID)
	if err != nil || u == nil {
		return err
	}
	u.Webhooks = max(0, u.Webhooks+n)
	switch {
	case n < 0 && claimed:
		u.Released.Webhooks++
	case n < 0:
		u.Unclaimed.Webhooks = max(0, u.Unclaimed.Webhooks-1)
	case !claimed:
		u.Unclaimed.Webhooks++
	}
	t.keep(u, us)
	return nil
}

// keep saves a tenant's usage, or removes it when it counts nothing: a
// rebuild, which replays none of what was deleted, finds no entry there.
func (t *tx) keep(u *TenantUsage, us *engine.Staged) {
	if u.Messages == 0 && u.Bytes == 0 && u.Webhooks == 0 && u.Released == (Claims{}) && u.Unclaimed == (Claims{}) {
		t.Remove(us)
		return
	}
	t.Save(us)
}

// usage loads a tenant's usage in the event's partition, or nil when
// this event is counted in it already. An event may count more than once
// (a message in, the oldest evicted); what an earlier attempt at the
// batch wrote, it does not count again: the entry is written before the
// inbox (writeRank), which is what tells that the event was applied.
func (t *tx) usage(tenantID string) (*TenantUsage, *engine.Staged, error) {
	u, us, err := load[TenantUsage](t, tenantUsageKey(tenantID, events.PartitionOf(t.Subject)))
	if err != nil {
		return nil, nil, err
	}
	if t.Applied(us) && !(us.Changed() && u.Seq == t.Seq) {
		return nil, nil, nil
	}
	if !us.Live() {
		*u = TenantUsage{Meta: u.Meta}
	}
	return u, us, nil
}
