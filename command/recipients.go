package command

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"time"

	"tempmail"
	"tempmail/fairshare"
	"tempmail/projections"
)

// CatchAllTTL is the lifetime of an inbox a catch-all domain makes: family
// A's default.
const CatchAllTTL = time.Hour

// Errors of the recipient policy. The SMTP server and the inbound webhook
// turn them into their own replies.
var (
	// ErrNoMailbox: the domain is served, but no live inbox has the address.
	ErrNoMailbox = tempmail.Errorf(tempmail.NotFound, "no such mailbox here")
	// ErrNotServed: the domain is not one of ours; we do not relay.
	ErrNotServed = tempmail.Errorf(tempmail.Forbidden, "relaying denied: domain not served here")
	// ErrTooManyInboxes: the client has made its share of inboxes; it may
	// try again later.
	ErrTooManyInboxes = tempmail.Errorf(tempmail.TooMany, "too many new addresses from your address")
)

// Recipient returns the live inbox an address names, or ErrNoMailbox or
// ErrNotServed, or an Unavailable error when the views cannot be read.
func (c *Commands) Recipient(ctx context.Context, addr string) (*projections.Inbox, error) {
	addr, err := tempmail.NormalizeAddress(addr)
	if err != nil {
		return nil, ErrNoMailbox
	}
	_, domain := tempmail.SplitAddress(addr)
	if _, err := c.served(ctx, domain); err != nil {
		return nil, err
	}
	in, err := c.live(ctx, addr)
	if errors.Is(err, ErrNoMailbox) && c.Mail.PlusAddressing {
		// local+tag@domain is local@domain's: one inbox serves many
		// sign-ups, told apart by their To.
		if local, _ := tempmail.SplitAddress(addr); strings.Contains(local, "+") {
			if base, _, _ := strings.Cut(local, "+"); base != "" {
				in, err = c.live(ctx, base+"@"+domain)
			}
		}
	}
	return in, err
}

// served returns the active domain named domain, or ErrNotServed. A name
// this process's views do not list is looked for again past their cache:
// a domain added through another process (AddDomain) takes mail here as
// soon as its addition returned.
func (c *Commands) served(ctx context.Context, domain string) (projections.Domain, error) {
	d, err := c.Views.DomainByName(ctx, domain)
	if tempmail.KindOf(err) == tempmail.NotFound {
		d, err = c.Views.LatestDomainByName(ctx, domain)
	}
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
		return projections.Domain{}, ErrNotServed
	case err != nil:
		return projections.Domain{}, err
	}
	return *d, nil
}

// live returns the live inbox that holds addr, or ErrNoMailbox when it is
// known that none does. A refusal for good makes the sender bounce the
// mail, so an address the views do not know is looked up in the log
// before it is refused: views that lag (a node catching up after a
// fault, a process whose watcher is behind) are waited for, briefly, and
// when they do not catch up, or the log cannot be read, the answer is
// Unavailable, which the sender tries again.
func (c *Commands) live(ctx context.Context, addr string) (*projections.Inbox, error) {
	in, err := c.Views.InboxByAddress(ctx, addr)
	switch {
	case err == nil && in.Live(time.Now()):
		return in, nil
	case err == nil:
		return nil, ErrNoMailbox // expired
	case tempmail.KindOf(err) != tempmail.NotFound:
		return nil, err
	}
	id, ack, err := c.Store.LiveInboxAt(ctx, addr)
	switch {
	case err != nil:
		return nil, err
	case id == "":
		return nil, ErrNoMailbox
	}
	wctx, cancel := context.WithTimeout(ctx, lagWait)
	defer cancel()
	if err := c.Views.WaitApplied(wctx, ack); err != nil {
		return nil, tempmail.Wrap(tempmail.Unavailable, err, "the views have not caught up with the inbox's creation; try again")
	}
	in, err = c.Views.InboxByAddress(ctx, addr)
	switch {
	case err == nil && in.Live(time.Now()):
		return in, nil
	case err == nil || tempmail.KindOf(err) == tempmail.NotFound:
		// Applied, and still not live: it ended meanwhile.
		return nil, ErrNoMailbox
	}
	return nil, err
}

// lagWait bounds how long a recipient the log knows and the views do not
// yet waits for them.
const lagWait = 2 * time.Second

// Accept returns the inbox that takes mail to addr from client: the live
// inbox that has it, or on a catch-all domain (--catch-all-domains, or one
// added with catch_all) one made now, its domain's tenant's if private. It answers as
// Recipient does, and also ErrTooManyInboxes when client has made its
// share of inboxes (an invalid client, the operator's own, has no limit),
// or an error of kind Full when the disk has no room for a new inbox.
func (c *Commands) Accept(ctx context.Context, addr string, client netip.Addr) (*projections.Inbox, error) {
	in, err := c.Recipient(ctx, addr)
	if !errors.Is(err, ErrNoMailbox) {
		return in, err
	}
	norm, nerr := tempmail.NormalizeAddress(addr)
	if nerr != nil {
		return nil, ErrNoMailbox
	}
	local, domain := tempmail.SplitAddress(norm)
	dom, err := c.served(ctx, domain)
	if err != nil {
		return nil, err
	}
	// A domain added at runtime says itself whether it catches all.
	if !dom.CatchAll && !slices.Contains(c.Mail.CatchAll, domain) {
		return nil, ErrNoMailbox
	}
	if c.Mail.PlusAddressing {
		// local+tag's inbox is local's, as for any inbox.
		local, _, _ = strings.Cut(local, "+")
	}
	if c.Names.Check(local) != nil {
		return nil, ErrNoMailbox // not a name an inbox may have: reserved, or outside the alphabet
	}
	if client.IsValid() {
		if ok, _ := c.Mail.Creates.Take(fairshare.Key(client), time.Now()); !ok {
			return nil, ErrTooManyInboxes
		}
	}
	// A private domain's catch-all inboxes are its tenant's, and count
	// in its quota.
	in, err = c.CreateInbox(ctx, Spec{Local: local,
		Domain: dom, TTL: CatchAllTTL, Tenant: dom.TenantID})
	if errors.Is(err, ErrTaken) {
		// Another message to the same address made it first.
		return c.Recipient(ctx, local+"@"+domain)
	}
	if err == nil {
		c.Log.Info("catch-all: inbox made by its first mail", "inbox", in.ID, "domain", domain)
	}
	return in, err
}
