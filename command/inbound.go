package command

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/mailauth"
	"tempmail/projections"
)

// MaxRecipients bounds the recipients of one message, over SMTP (RCPT
// commands) and the inbound webhook alike.
const MaxRecipients = 100

// DeliverHandedOver delivers a message handed over HTTP (the inbound
// webhook) by client (its IP address, for the Received field and the log)
// to the addresses in to, through the same path as SMTP. Addresses that
// are not live inboxes are skipped; if none is, the error is ErrNoMailbox.
func (c *Commands) DeliverHandedOver(ctx context.Context, client string, to []string, msg []byte) (Delivered, error) {
	start := time.Now()
	if len(to) > MaxRecipients {
		return Delivered{}, tempmail.Errorf(tempmail.Invalid, "at most %d recipients per message", MaxRecipients)
	}
	var rcpts []*projections.Inbox
	var addrs []string
	pending := map[string]Pending{} // what this message brings each tenant, so far
	for _, addr := range to {
		// The caller holds the API token: it is the operator's relay,
		// whose catch-all inboxes count against no client's share.
		in, err := c.Accept(ctx, addr, netip.Addr{})
		if errors.Is(err, ErrNoMailbox) {
			c.Metrics.Reject(RejectNoMailbox)
			continue
		}
		if errors.Is(err, ErrNotServed) {
			c.Metrics.Reject(RejectNotServed)
			continue
		}
		known := err == nil && slices.ContainsFunc(rcpts, func(x *projections.Inbox) bool { return x.ID == in.ID })
		if err == nil && !known {
			// A recipient over its tenant's quota refuses the whole
			// message (429), before any copy is stored: the caller tries
			// it again whole, as an MTA would the one recipient.
			p := pending[in.TenantID]
			err = c.MailQuota(ctx, in, int64(len(msg)), p)
			p.Messages, p.Bytes = p.Messages+1, p.Bytes+int64(len(msg))
			pending[in.TenantID] = p
		}
		if errors.Is(err, ErrOverQuota) {
			c.Metrics.Reject(RejectQuota)
		}
		if err != nil {
			return Delivered{}, err
		}
		if !known {
			rcpts = append(rcpts, in)
			addrs = append(addrs, in.Address)
		}
	}
	if len(rcpts) == 0 {
		return Delivered{}, ErrNoMailbox
	}
	hdr := c.ReceivedHeader("webhook", client, "HTTP", uuid.Must(uuid.NewV7()).String(), addrs, time.Now())
	room := c.HeaderRoom(hdr)
	buf := make([]byte, room+len(msg))
	copy(buf[room:], msg)
	// The caller over HTTP is not the sending mail server: there is no
	// SMTP client whose address SPF could check (it says none), and DKIM
	// and DMARC check the message as any other.
	raw, sent, auth := c.Authenticate(ctx, buf, room, hdr, mailauth.Input{})
	res, err := c.Deliver(ctx, Envelope{Recipients: rcpts, Auth: auth}, raw, sent)
	switch {
	case err == nil:
		c.LogAccepted("webhook", client, res, len(raw), time.Since(start))
	case errors.Is(err, ErrNoMailbox):
		c.Metrics.Reject(RejectNoMailbox) // every recipient ended meanwhile
	case tempmail.KindOf(err) == tempmail.TooLarge:
		c.Metrics.Reject(RejectTooLarge)
	}
	return res, err
}
