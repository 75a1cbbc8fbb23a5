package command

import (
	"context"

	"tempmail/events"
	"tempmail/mailbox"
)

// MarkRead marks a message read and returns it as the views now show it;
// one read already is returned as it is.
func (c *Commands) MarkRead(ctx context.Context, m *mailbox.Message) (*mailbox.Message, error) {
	if m.IsRead {
		return m, nil // idempotent, and nothing to record
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ack, err := c.Store.AppendMessageEvent(ctx, m.Address, m.InboxID, m.ID, &events.MarkedRead{InboxID: m.InboxID, MessageID: m.ID})
	if err := c.applied(ctx, ack, err); err != nil {
		return nil, err
	}
	in, err := c.Views.Inbox(ctx, m.InboxID)
	if err != nil {
		return nil, err
	}
	return c.Views.MessageIn(ctx, in, m.ID)
}

// DeleteMessage deletes a message for good: what it said can no longer be
// read once the views have let it go.
func (c *Commands) DeleteMessage(ctx context.Context, m *mailbox.Message) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ack, err := c.Store.AppendMessageEvent(ctx, m.Address, m.InboxID, m.ID, &events.Deleted{InboxID: m.InboxID, MessageID: m.ID})
	return c.applied(ctx, ack, err)
}
