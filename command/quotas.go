package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tempmail"
	"tempmail/projections"
)

// ErrOverQuota is in the chain of the error MailQuota returns for an
// inbox whose tenant is past its daily messages or its storage: the mail
// is refused for now (SMTP 452 4.2.2 at RCPT, the inbound webhook 429),
// so that the sender keeps it and tries again, never taken and dropped.
var ErrOverQuota = errors.New("tenant's mail quota exceeded")

// MailQuota reports whether in may take one more message: an inbox of no
// tenant always may; a tenant's may while the messages its tenant's
// inboxes hold that came today (UTC; a message deleted stops counting, as
// the log forgets it) are below quota.messages_per_day and the bytes they
// hold below quota.storage_bytes (0: unlimited). The counts are the views' (its
// inboxes' MailReceived and deletions, projected: every node reads the
// same, a rebuild makes them again), read here, not claimed: deliveries
// in flight when the count reaches the quota, at most one message for
// each recipient being delivered at once, may pass it, as may their
// bytes the storage quota.
func (c *Commands) MailQuota(ctx context.Context, in *projections.Inbox) error {
	if in == nil || in.TenantID == "" {
		return nil
	}
	t, err := c.Views.Tenant(ctx, in.TenantID)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil // deleted meanwhile: its inboxes end by their own events
	}
	if err != nil {
		return err
	}
	q := t.Quota
	if q.MessagesPerDay <= 0 && q.StorageBytes <= 0 {
		return nil
	}
	u, err := c.Views.Usage(ctx, t.ID, time.Now())
	if err != nil {
		return err
	}
	if q.MessagesPerDay > 0 && u.MessagesToday >= q.MessagesPerDay {
		c.Metrics.refused(t.ID, "messages_per_day")
		return tempmail.Wrap(tempmail.TooMany, ErrOverQuota, overQuota("messages_per_day", u.MessagesToday, q.MessagesPerDay,
			"try again after midnight UTC"))
	}
	if q.StorageBytes > 0 && u.StorageBytes >= q.StorageBytes {
		c.Metrics.refused(t.ID, "storage_bytes")
		return tempmail.Wrap(tempmail.TooMany, ErrOverQuota, overQuota("storage_bytes", u.StorageBytes, q.StorageBytes,
			"try again once mail is deleted"))
	}
	return nil
}

func overQuota(name string, current, limit int64, then string) string {
	return fmt.Sprintf("quota exceeded: %s %d of %d, %s", name, current, limit, then)
}

// webhookQuota refuses a subscription to a tenant's inbox when the
// subscriptions to its tenant's inboxes are at quota.webhooks (0:
// unlimited), 403 as the inbox quota is. The count is the views', read:
// subscriptions racing at the quota may pass it by those in flight.
func (c *Commands) webhookQuota(ctx context.Context, in *projections.Inbox) error {
	if in == nil || in.TenantID == "" {
		return nil
	}
	t, err := c.Views.Tenant(ctx, in.TenantID)
	if tempmail.KindOf(err) == tempmail.NotFound || err == nil && t.Quota.Webhooks <= 0 {
		return nil
	}
	if err != nil {
		return err
	}
	u, err := c.Views.Usage(ctx, t.ID, time.Now())
	if err != nil {
		return err
	}
	if u.Webhooks >= t.Quota.Webhooks {
		c.Metrics.refused(t.ID, "webhooks")
		return tempmail.Errorf(tempmail.Forbidden, "quota exceeded: webhooks %d of %d", u.Webhooks, t.Quota.Webhooks)
	}
	return nil
}
