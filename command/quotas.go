package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tempmail"
	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections"
)

// A tenant's quotas are claimed, not read (events/claims.go): what counts
// against one is stored with a claim that expects the tenant's last event,
// checked against the count the views hold at that event. So of racing
// deliveries, subscriptions or creations at a quota, the stream takes one
// at a time and none passes it. The checks made before (at RCPT, before a
// webhook's message is read) only answer early.

// ErrOverQuota is in the chain of the error a mail quota refusal returns:
// the mail is refused for now (SMTP 452 4.2.2, the inbound webhook 429),
// so that the sender keeps it and tries again, never taken and dropped.
var ErrOverQuota = errors.New("tenant's mail quota exceeded")

// Pending is mail a caller is already bringing to a tenant, not yet
// claimed: the recipients of the same tenant an SMTP transaction has
// accepted so far, and their bytes (as SIZE= says).
type Pending struct {
	Messages int64
	Bytes    int64
}

// MailQuota reports whether in may take one more message of size bytes (0:
// unknown, and so at least one) on top of pending: an inbox of no tenant,
// or of a tenant without a mail quota, always may. It reads what the
// tenant's claims count (projections.Reader.Claimed) as the claim at
// delivery will, every claim acknowledged so far included: an early
// answer, which the claim makes exact against claims racing it.
func (c *Commands) MailQuota(ctx context.Context, in *projections.Inbox, size int64, pending Pending) error {
	if in == nil || in.TenantID == "" {
		return nil
	}
	t, err := c.Views.Tenant(ctx, in.TenantID)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil // deleted meanwhile: its inboxes end by their own events
	}
	if err != nil || !mailQuota(t.Quota) {
		return err
	}
	// The tenant's view may not show the claim of a message acknowledged
	// a moment ago (its 250 waits for the message's views, not the
	// tenant's): read it once it has caught up with the tenant's last
	// event, as the claim does. Otherwise a message past the quota would
	// pass here and be refused after DATA, with every other recipient of
	// it, other tenants' too, deferred along with it.
	for try := 0; ; try++ {
		tn, _, err := c.tenantNow(ctx, in.TenantID)
		if tempmail.KindOf(err) == tempmail.NotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if tn != nil {
			t = tn
			break
		}
		if try == 2 {
			break // claims keep coming: the claim at delivery decides
		}
	}
	u, err := c.Views.Claimed(ctx, t, time.Now())
	if err != nil {
		return err
	}
	return c.fits(t, u, pending.Messages+1, pending.Bytes+max(size, 1))
}

// mailQuota reports a quota that counts mail.
func mailQuota(q events.Quota) bool { return q.MessagesPerDay > 0 || q.StorageBytes > 0 }

// fits says whether messages more of bytes in all fit t's mail quota on top
// of u: refused (counted, ErrOverQuota) when they would pass it.
func (c *Commands) fits(t *projections.Tenant, u mailbox.Usage, messages, bytes int64) error {
	q := t.Quota
	if q.MessagesPerDay > 0 && u.MessagesToday+messages > q.MessagesPerDay {
		c.Metrics.refused(t.ID, "messages_per_day")
		return tempmail.Wrap(tempmail.TooMany, ErrOverQuota, overQuota("messages_per_day", u.MessagesToday, q.MessagesPerDay,
			"try again after midnight UTC"))
	}
	if q.StorageBytes > 0 && u.StorageBytes+bytes > q.StorageBytes {
		c.Metrics.refused(t.ID, "storage_bytes")
		return tempmail.Wrap(tempmail.TooMany, ErrOverQuota, overQuota("storage_bytes", u.StorageBytes, q.StorageBytes,
			"try again once mail is deleted"))
	}
	return nil
}

func overQuota(name string, current, limit int64, then string) string {
	return fmt.Sprintf("quota exceeded: %s %d of %d, %s", name, current, limit, then)
}

// claimMail gives the copies of a delivery to inboxes of tenants with a
// mail quota their claims (events.Copy.Claim), checked against each
// tenant's count as of its last event: the first claim of each tenant
// expects that event. over is ErrOverQuota's error when a tenant's copies
// do not fit; ok is false (and nothing claimed) while the views are still
// applying what a tenant's subject holds: the caller tries again. release
// ends the turns taken (Turns), once the delivery is stored.
func (c *Commands) claimMail(ctx context.Context, recipients []*projections.Inbox, ds []events.Copy, fresh []int) (release func(), ok bool, err error) {
	byTenant := map[string][]int{} // copies, by tenant
	var order []string
	for j := range ds {
		in := recipients[fresh[j]]
		ds[j].Claim, ds[j].Mail.TenantID = nil, ""
		if in.TenantID == "" {
			continue
		}
		if _, seen := byTenant[in.TenantID]; !seen {
			order = append(order, in.TenantID)
		}
		byTenant[in.TenantID] = append(byTenant[in.TenantID], j)
	}
	var quotas []string // the tenants with a mail quota
	for _, id := range order {
		t, err := c.Views.Tenant(ctx, id)
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue // deleted meanwhile: its inboxes end by their own events
		}
		if err != nil {
			return nil, false, err
		}
		if mailQuota(t.Quota) {
			quotas = append(quotas, id)
		}
	}
	release, err = c.Turns.takeAll(ctx, quotas)
	if err != nil {
		return nil, false, err
	}
	for _, id := range quotas {
		tn, last, err := c.tenantNow(ctx, id)
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue // deleted meanwhile
		}
		if err != nil || tn == nil {
			release()
			return nil, false, err
		}
		u, err := c.Views.Claimed(ctx, tn, time.Now())
		if err != nil {
			release()
			return nil, false, err
		}
		copies := byTenant[id]
		size := ds[copies[0]].Mail.Size
		if err := c.fits(tn, u, int64(len(copies)), size*int64(len(copies))); err != nil {
			release()
			return nil, false, err
		}
		for k, j := range copies {
			m := &ds[j].Mail
			m.TenantID = id
			ds[j].Claim = &events.Claim{Payload: &events.MailClaimed{TenantID: id, InboxID: m.InboxID, MessageID: m.MessageID,
				Size: m.Size, Day: m.ReceivedAt.UTC().Format(time.DateOnly)}, Expect: k == 0, ExpectSeq: last}
		}
	}
	return release, true, nil
}

// webhookClaim is the claim of a subscription to a tenant's inbox: nil
// when its tenant has no webhooks quota (or no longer exists), or when the
// views are still applying what its subject holds (ok false: try again).
// One past the quota is refused with 403, as a creation past the inbox
// quota is.
func (c *Commands) webhookClaim(ctx context.Context, in *projections.Inbox, webhookID string) (claim *events.Claim, ok bool, err error) {
	if in == nil || in.TenantID == "" {
		return nil, true, nil
	}
	tn, last, err := c.tenantNow(ctx, in.TenantID)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, true, nil
	}
	if err != nil || tn == nil {
		return nil, false, err
	}
	if tn.Quota.Webhooks > 0 {
		u, err := c.Views.Claimed(ctx, tn, time.Now())
		if err != nil {
			return nil, false, err
		}
		if u.Webhooks >= tn.Quota.Webhooks {
			c.Metrics.refused(tn.ID, "webhooks")
			return nil, false, tempmail.Errorf(tempmail.Forbidden, "quota exceeded: webhooks %d of %d", u.Webhooks, tn.Quota.Webhooks)
		}
	}
	return &events.Claim{Payload: &events.WebhookClaimed{TenantID: tn.ID, WebhookID: webhookID, InboxID: in.ID},
		Expect: true, ExpectSeq: last}, true, nil
}
