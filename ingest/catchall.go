package ingest

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"time"

	"tempmail"
	"tempmail/command"
	"tempmail/events"
	"tempmail/fairshare"
	"tempmail/projections"
)

// CatchAllTTL is the lifetime of an inbox a catch-all domain makes: family
// A's default.
const CatchAllTTL = time.Hour

// CatchAll makes the inbox of an address on a catch-all domain when its
// first mail comes (--catch-all-domains). Such inboxes are family A's, the
// operator's: found by address with the API token, read by every family.
type CatchAll struct {
	Domains  []string // lower case; each also served
	Commands *command.Commands
	// Creates counts the inboxes each client makes, with those made
	// through the API; nil: no limit.
	Creates *fairshare.Limiter
}

// ErrTooManyInboxes: the client has made its share of inboxes; it may try
// again later.
var ErrTooManyInboxes = tempmail.Errorf(tempmail.TooMany, "too many new addresses from your address")

// Accept returns the inbox that takes mail to addr from client: the live
// inbox that has it, or on a catch-all domain one made now. It answers as
// Recipient does, and also ErrTooManyInboxes when client has made its
// share of inboxes (an invalid client, the operator's own, has no limit),
// or an error of kind Full when the disk has no room for a new inbox.
func (d *Deliverer) Accept(ctx context.Context, addr string, client netip.Addr) (*projections.Inbox, error) {
	in, err := d.Recipient(ctx, addr)
	if !errors.Is(err, ErrNoMailbox) || d.CatchAll == nil {
		return in, err
	}
	norm, nerr := tempmail.NormalizeAddress(addr)
	if nerr != nil {
		return nil, ErrNoMailbox
	}
	local, domain := tempmail.SplitAddress(norm)
	if !slices.Contains(d.CatchAll.Domains, domain) {
		return nil, ErrNoMailbox
	}
	if d.PlusAddressing {
		// local+tag's inbox is local's, as for any inbox.
		local, _, _ = strings.Cut(local, "+")
	}
	if d.CatchAll.Commands.Names.Check(local) != nil {
		return nil, ErrNoMailbox // not a name an inbox may have: reserved, or outside the alphabet
	}
	if client.IsValid() {
		if ok, _ := d.CatchAll.Creates.Take(fairshare.Key(client), time.Now()); !ok {
			return nil, ErrTooManyInboxes
		}
	}
	domains, _, err := d.Views.Domains(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(domains, func(dom projections.Domain) bool { return dom.Active && dom.Name == domain })
	if i < 0 {
		return nil, ErrNotServed
	}
	in, err = d.CatchAll.Commands.CreateInbox(ctx, command.Spec{Family: events.FamilyA, Local: local,
		Domain: domains[i], TTL: CatchAllTTL})
	if errors.Is(err, command.ErrTaken) {
		// Another message to the same address made it first.
		return d.Recipient(ctx, local+"@"+domain)
	}
	if err == nil {
		d.Log.Info("catch-all: inbox made by its first mail", "inbox", in.ID, "domain", domain)
	}
	return in, err
}
