package command

import (
	"context"
	"log/slog"
	"time"

	"tempmail"
	"tempmail/broker"
	"tempmail/events"
	"tempmail/projections"
	"tempmail/retry"
	"tempmail/webhooks"
)

// Timeout bounds a command's publish and its wait for the views. It is
// normally milliseconds; the bound is for a cluster riding out the loss of
// a node, which takes new stream leaders (5 to 11 s measured) or moves a
// partition to another process's worker (the pinned TTL, 5 s): a command
// that waits that long succeeds, where a shorter wait would fail a change
// that was in fact stored.
const Timeout = 15 * time.Second

// Commands changes what the service holds.
type Commands struct {
	Store *events.Store
	Views *projections.Reader
	Hooks *webhooks.Webhooks // outbound webhooks: their targets' check and delivery log
	Disk  *broker.DiskGuard  // nil: no disk to keep room on
	Names *tempmail.Names
	Log   *slog.Logger
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
