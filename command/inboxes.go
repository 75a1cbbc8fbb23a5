package command

import (
	"context"
	"crypto/rand"
	"errors"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections"
)

// Spec is what a family asks of a new inbox. It says what the inbox is
// (how long it lives, what becomes of its messages), not which API asks:
// once made, an inbox is the same through every API.
type Spec struct {
	// Retention is what becomes of its messages; the zero value, that they
	// live as long as the inbox.
	Retention mailbox.Retention
	Local     string // wanted local part, checked already; empty: random
	Random    int    // length of a random local part
	Domain    projections.Domain
	TTL       time.Duration // 0: never expires
	// Tenant is the tenant whose key asks for the inbox; empty: none.
	Tenant string
	// PasswordHash is a mail.tm account's hashed password; empty: none.
	PasswordHash string
}

// ErrTaken is the answer for a name a live inbox holds.
var ErrTaken = tempmail.Errorf(tempmail.Conflict, "Email name already taken")

// CreateInbox claims an address and records a new inbox, returning it as the
// views now show it. The stream decides races: of two concurrent claims of
// one address exactly one succeeds, and the other gets ErrTaken (or, for a
// random name, another name).
func (c *Commands) CreateInbox(ctx context.Context, spec Spec) (*projections.Inbox, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	release, err := c.Disk.Reserve(newThingBytes)
	if err != nil {
		return nil, err
	}
	defer release()
	var made *projections.Inbox
	tries := 5
	if spec.Tenant != "" {
		// Racing creations of one tenant's inboxes are counted one at a
		// time (CreateTenantInbox): each round of a race has one winner.
		tries = 60
	}
	err = again(ctx, tries, func(attempt int) (bool, error) {
		addr, lifecycleSeq, free, err := c.freeAddress(ctx, spec, attempt)
		if !free || err != nil {
			return false, err
		}
		now := time.Now().UTC()
		ev := events.InboxCreated{InboxID: uuid.NewString(), Address: addr, Token: rand.Text(),
			Retention: spec.Retention, DomainID: spec.Domain.ID, CreatedAt: now, TenantID: spec.Tenant,
			PasswordHash: spec.PasswordHash}
		if spec.TTL > 0 {
			ev.ExpiresAt, ev.TTL = now.Add(spec.TTL), int64(spec.TTL/time.Second)
		}
		recorded, err := c.recordInbox(ctx, ev, lifecycleSeq)
		if !recorded || err != nil {
			return false, err
		}
		c.Metrics.created(spec.Tenant)
		made, err = c.Views.Inbox(ctx, ev.InboxID)
		return true, err
	})
	if errors.Is(err, errGaveUp) {
		if spec.Local != "" {
			return nil, ErrTaken
		}
		return nil, tempmail.Errorf(tempmail.Unavailable, "could not find a free address; try again")
	}
	return made, err
}

// freeAddress picks the address of CreateInbox's attempt: spec's name, or
// a random one, on spec's domain. It returns the address and its
// lifecycle subject's last sequence when the address is free; free is
// false when a random name is taken (draw another); a wanted name that is
// taken is ErrTaken.
func (c *Commands) freeAddress(ctx context.Context, spec Spec, attempt int) (addr string, lifecycleSeq uint64, free bool, err error) {
	local := spec.Local
	if local == "" {
		local = randomName(spec.Random)
		if c.Names.Reserved(local) {
			return "", 0, false, nil // an operator's reserved name of that length, drawn by chance
		}
	}
	addr = local + "@" + spec.Domain.Name
	// The cached entry first; past the cache once a claim lost, or when
	// the cache says a wanted name is taken: this process's cache can lag
	// the views a moment (its watcher brings their writes), and a name
	// freed a moment ago is free.
	a, err := c.Views.Address(ctx, addr, attempt > 0)
	if err == nil && a.Live && spec.Local != "" && attempt == 0 {
		a, err = c.Views.Address(ctx, addr, true)
	}
	switch {
	case err != nil:
		return "", 0, false, err
	case a.Live && spec.Local != "":
		return "", 0, false, ErrTaken
	case a.Live:
		return "", 0, false, nil // a random name taken: another
	}
	return addr, a.LifecycleSeq, true, nil
}

// recordInbox appends ev, the claim of an address whose lifecycle subject
// was last at lifecycleSeq (a tenant's inbox within its quota, one of the
// tenant's creations at a time), and waits until the views have applied
// it. recorded is false when the stream refused the claim: the address
// taken meanwhile, or this process's view of it (or of the tenant)
// behind the log; look again once the views catch up.
func (c *Commands) recordInbox(ctx context.Context, ev events.InboxCreated, lifecycleSeq uint64) (recorded bool, err error) {
	var acks []events.Ack
	if ev.TenantID == "" {
		var ack events.Ack
		ack, err = c.Store.CreateInbox(ctx, ev, lifecycleSeq)
		acks = []events.Ack{ack}
	} else {
		var release func()
		if release, err = c.Turns.take(ctx, ev.TenantID); err != nil {
			return false, err
		}
		defer release() // until the views show it: the next turn counts it
		acks, err = c.createTenantInbox(ctx, ev, lifecycleSeq)
	}
	if tempmail.KindOf(err) == tempmail.Conflict {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, ack := range acks {
		if err := c.Views.WaitApplied(ctx, ack); err != nil {
			return false, err
		}
	}
	return true, nil
}

// createTenantInbox records an inbox of a tenant, within its quota: the
// count read here is the one the stream checks the claim against (the
// tenant's last event), so of racing claims at the quota, the stream
// takes those the count allows, one at a time, and the others, reading
// the tenant again, find it full.
func (c *Commands) createTenantInbox(ctx context.Context, ev events.InboxCreated, lifecycleSeq uint64) ([]events.Ack, error) {
	tn, last, err := c.tenantNow(ctx, ev.TenantID)
	if err != nil {
		return nil, err
	}
	if tn == nil {
		return nil, errViewsBehind
	}
	if limit := tn.Quota.Inboxes; limit > 0 && tn.Live >= limit {
		c.Metrics.refused(tn.ID, "inboxes")
		return nil, tempmail.Errorf(tempmail.Forbidden, "quota exceeded: inboxes %d of %d", tn.Live, limit)
	}
	return c.Store.CreateTenantInbox(ctx, ev, lifecycleSeq, last)
}

// errViewsBehind: the views are still applying what a tenant's subject
// holds; a Conflict, which the caller tries again.
var errViewsBehind = tempmail.Errorf(tempmail.Conflict, "the tenant changed concurrently")

// DeleteInbox ends an inbox for good, with all its mail. One that ended
// meanwhile is of kind NotFound. An inbox of a tenant stops counting
// against its quota as it ends.
func (c *Commands) DeleteInbox(ctx context.Context, in *projections.Inbox) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ev := &events.InboxDeleted{InboxID: in.ID, Address: in.Address}
	if in.TenantID == "" {
		ack, err := c.Store.EndInbox(ctx, in.Address, ev, in.LifecycleSeq)
		return c.applied(ctx, ack, err)
	}
	acks, err := c.Store.EndTenantInbox(ctx, in.Address, in.TenantID, ev, in.LifecycleSeq)
	if err != nil {
		return err
	}
	for _, ack := range acks {
		if err := c.Views.WaitApplied(ctx, ack); err != nil {
			return err
		}
	}
	return nil
}

const randomAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// randomName returns n characters of [a-z0-9] from crypto/rand, without
// modulo bias.
func randomName(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+8)
	for len(out) < n {
		_, _ = rand.Read(buf)
		for _, b := range buf {
			if int(b) < 256/len(randomAlphabet)*len(randomAlphabet) && len(out) < n {
				out = append(out, randomAlphabet[int(b)%len(randomAlphabet)])
			}
		}
	}
	return string(out)
}
