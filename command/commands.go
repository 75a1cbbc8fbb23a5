package command

import (
	"context"
	"log/slog"
	"time"

	"tempmail"
	"tempmail/broker"
	"tempmail/events"
	"tempmail/fairshare"
	"tempmail/mailauth"
	"tempmail/projections"
	"tempmail/retry"
)

// Timeout bounds a command's publish and its wait for the views. It is
// normally milliseconds; the bound is for a cluster riding out the loss of
// a node, which takes new stream leaders (5 to 11 s measured) or moves a
// partition to another process's worker (the pinned TTL, 5 s): a command
// that waits that long succeeds, where a shorter wait would fail a change
// that was in fact stored.
const Timeout = 15 * time.Second

// Commands changes what the service holds: it is the one writer, whether
// the change comes from an API family, MCP, or mail arriving.
type Commands struct {
	Store *events.Store
	Views *projections.Reader
	Hooks Hooks             // outbound webhooks: their targets' check and delivery log
	Disk  *broker.DiskGuard // nil: no disk to keep room on
	Names *tempmail.Names
	Log   *slog.Logger
	// Mail is how received mail is accepted and kept (Deliver).
	Mail Mail
	// Metrics counts the mail accepted and refused; nil: nothing.
	Metrics *Metrics
	// Turns, when set, has racing creations of one tenant's inboxes in
	// this process take turns (turns.go); nil: they race.
	Turns *Turns
	// Faults keeps the service's fault rules between changes, and their
	// rates' buckets (faults.go); nil: read each time, no rates.
	Faults *FaultCache
}

// Mail is what shapes the delivery of received mail.
type Mail struct {
	// MaxMessageBytes is the largest message accepted, raw.
	MaxMessageBytes int64
	// Hostname names this server in Received fields, in the
	// Authentication-Results it writes, and in the SMTP greeting.
	Hostname string
	// Timeout bounds storing one message; 0 means 15s. When it passes, the
	// sender is told to retry.
	Timeout time.Duration
	// Retention is how long an inbox that retains its messages
	// (mailbox.RetainMessages) keeps each one. 0: for ever.
	Retention time.Duration
	// PlusAddressing delivers local+tag@domain to local@domain's inbox.
	PlusAddressing bool
	// CatchAll are the catch-all domains (lower case, each also served):
	// an address there gets its inbox when its first mail comes (Accept).
	CatchAll []string
	// Creates counts the inboxes each client makes by mail to a catch-all
	// domain, with those it makes through the API; nil: no limit.
	Creates *fairshare.Limiter
	// Auth, when set, checks SPF, DKIM and DMARC of every message before
	// it is stored, and the message gets an Authentication-Results field
	// under our Received; nil: no checks (--auth-checks=false).
	Auth *mailauth.Verifier
}

// Hooks is what commands ask of the outbound webhooks (package webhooks):
// a target checked before it is recorded, a fresh signing secret, and a
// subscription's delivery log dropped when it ends.
type Hooks interface {
	CheckURL(ctx context.Context, url string) error
	NewSecret() string
	Forget(ctx context.Context, id string) error
}

// newThingBytes is about what an inbox or a subscription takes on disk
// when it is made: its event and its view entries.
const newThingBytes = 16 << 10

// applied waits until the event ack names is applied to the views; err is
// the publish's, passed on.
func (c *Commands) applied(ctx context.Context, ack events.Ack, err error) error {
	if err != nil {
		return err
	}
	return c.Views.WaitApplied(ctx, ack)
}

// again runs try until it is done or fails, at most tries times, waiting
// between tries as for a lost race (retry.Race) unless ctx ends first.
func again(ctx context.Context, tries int, try func(attempt int) (done bool, err error)) error {
	for attempt := 0; attempt < tries; attempt++ {
		done, err := try(attempt)
		if done || err != nil {
			return err
		}
		if !retry.Race.Sleep(ctx, attempt) {
			return tempmail.Wrap(tempmail.Unavailable, ctx.Err(), "the change could not be made in time; try again")
		}
	}
	return errGaveUp
}

// errGaveUp is what again answers when every try lost its race.
var errGaveUp = tempmail.Errorf(tempmail.Conflict, "the change lost its race too many times; try again")
