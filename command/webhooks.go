package command

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/events"
	"tempmail/projections"
)

// Subscription is what a new webhook subscription asks for.
type Subscription struct {
	URL    string
	Events []string           // checked already (mailbox.HookKinds)
	Inbox  *projections.Inbox // nil: every inbox
}

// Subscribe records a subscription and returns it as the views now show
// it. The views keep at most projections.MaxInboxWebhooks subscriptions to
// one inbox and MaxGlobalWebhooks to every inbox, and refuse those beyond
// as they apply them, one at a time: of racing subscriptions past a cap,
// the later get a Conflict. The target is checked first
// (webhooks.Webhooks.CheckURL).
func (c *Commands) Subscribe(ctx context.Context, sub Subscription) (*projections.Webhook, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if strings.TrimSpace(sub.URL) == "" {
		return nil, tempmail.Errorf(tempmail.Invalid, "url is required")
	}
	if err := c.Hooks.CheckURL(ctx, sub.URL); err != nil {
		return nil, err
	}
	release, err := c.Disk.Reserve(newThingBytes)
	if err != nil {
		return nil, err
	}
	defer release()
	ev := events.WebhookCreated{WebhookID: uuid.NewString(), URL: sub.URL, Events: sub.Events,
		Secret: c.Hooks.NewSecret(), CreatedAt: time.Now().UTC()}
	var lifecycle uint64
	if in := sub.Inbox; in != nil {
		if len(in.Webhooks) >= projections.MaxInboxWebhooks {
			return nil, errInboxCap
		}
		ev.InboxID, ev.Address, lifecycle = in.ID, in.Address, in.LifecycleSeq
	} else if global, err := c.Views.Webhooks(ctx); err != nil {
		return nil, err
	} else if len(global) >= projections.MaxGlobalWebhooks {
		return nil, errGlobalCap
	}
	// A subscription to a tenant's inbox is claimed against its quota
	// (quotas.go): of racing ones at the quota, none passes it; those of
	// this process take turns (Turns).
	if sub.Inbox != nil && sub.Inbox.TenantID != "" {
		release, err := c.Turns.take(ctx, sub.Inbox.TenantID)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	err = again(ctx, 40, func(int) (bool, error) {
		claim, ok, err := c.webhookClaim(ctx, sub.Inbox, ev.WebhookID)
		if err != nil || !ok {
			return false, err
		}
		if claim != nil {
			ev.TenantID = sub.Inbox.TenantID
		}
		ack, err := c.Store.CreateWebhook(ctx, ev, lifecycle, claim)
		if tempmail.KindOf(err) == tempmail.Conflict {
			// The tenant's count moved on, or the inbox ended: look again.
			in, ierr := c.Views.Inbox(ctx, sub.Inbox.ID)
			if ierr != nil || !in.Live(time.Now()) {
				return false, tempmail.Errorf(tempmail.NotFound, "Inbox not found or expired")
			}
			lifecycle = in.LifecycleSeq
			return false, nil
		}
		return true, c.applied(ctx, ack, err)
	})
	if err != nil {
		return nil, err
	}
	h, err := c.Views.Webhook(ctx, ev.WebhookID)
	if tempmail.KindOf(err) != tempmail.NotFound {
		return h, err
	}
	// The views took no subscription: its inbox ended, or others took the
	// last places first.
	if sub.Inbox == nil {
		return nil, errGlobalCap
	}
	if in, err := c.Views.Inbox(ctx, sub.Inbox.ID); err != nil || !in.Live(time.Now()) {
		return nil, tempmail.Errorf(tempmail.NotFound, "Inbox not found or expired")
	}
	return nil, errInboxCap
}

var (
	errInboxCap = tempmail.Errorf(tempmail.Conflict, "the inbox has %d webhooks, the most it may have: delete one first",
		projections.MaxInboxWebhooks)
	errGlobalCap = tempmail.Errorf(tempmail.Conflict, "there are %d webhooks to every inbox, the most there may be: delete one first",
		projections.MaxGlobalWebhooks)
)

// Unsubscribe ends a subscription and forgets its delivery log.
func (c *Commands) Unsubscribe(ctx context.Context, h *projections.Webhook) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ack, err := c.Store.DeleteWebhook(ctx, events.WebhookDeleted{WebhookID: h.ID, InboxID: h.InboxID, Address: h.Address})
	if err := c.applied(ctx, ack, err); err != nil {
		return err
	}
	if err := c.Hooks.Forget(ctx, h.ID); err != nil {
		c.Log.Warn("webhooks: cannot drop a deleted subscription's log; it ages out", "webhook", h.ID, "err", err)
	}
	return nil
}

// RotateSecret records a new secret for h and returns h as the views now
// show it, and the secret. A subscription deleted meanwhile is of kind
// NotFound; one rotated again by a request whose rotation was applied
// after this one is a Conflict: the secret returned is always the one in
// force.
func (c *Commands) RotateSecret(ctx context.Context, h *projections.Webhook) (*projections.Webhook, string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ev := events.WebhookSecretRotated{WebhookID: h.ID, InboxID: h.InboxID, Address: h.Address,
		Secret: c.Hooks.NewSecret(), RotatedAt: time.Now().UTC()}
	ack, err := c.Store.RotateWebhookSecret(ctx, ev)
	if err := c.applied(ctx, ack, err); err != nil {
		return nil, "", err
	}
	h, err = c.Views.Webhook(ctx, h.ID)
	if err != nil {
		return nil, "", err
	}
	if h.Secret != ev.Secret {
		return nil, "", tempmail.Errorf(tempmail.Conflict, "the webhook's secret was rotated again meanwhile; rotate it once more to see the one in force")
	}
	return h, ev.Secret, nil
}
