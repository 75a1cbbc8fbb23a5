package command

import (
	"context"
	"fmt"
	"slices"

	"tempmail"
	"tempmail/events"
	"tempmail/projections"
)

// SyncDomains records the configured domains as events: a new name gets the
// next free id, a known one keeps its id (and is reactivated if needed), and
// a known active one missing from names is deactivated. Running it again
// with the same names publishes nothing. Several nodes starting at once
// race here; the domain list's expected sequence decides, and the loser
// reads the list again.
func (c *Commands) SyncDomains(ctx context.Context, names []string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	err := again(ctx, 6, func(int) (bool, error) {
		list, seq, err := c.Views.Domains(ctx)
		if err != nil {
			return false, err
		}
		var ack events.Ack
		for _, p := range domainChanges(list, names) {
			if ack, err = c.Store.AppendDomainEvent(ctx, p, seq); err != nil {
				break
			}
			seq = ack.Seq
		}
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // another node changed the list, or our view lags
		}
		return true, c.applied(ctx, ack, err)
	})
	if err != nil {
		return fmt.Errorf("record domains: %w", err)
	}
	return nil
}

func domainChanges(list []projections.Domain, names []string) []events.Payload {
	var out []events.Payload
	next := 1
	for _, d := range list {
		next = max(next, d.ID+1)
	}
	for _, name := range names {
		i := slices.IndexFunc(list, func(d projections.Domain) bool { return d.Name == name })
		switch {
		case i < 0:
			out = append(out, &events.DomainAdded{ID: next, Name: name})
			next++
		case !list[i].Active:
			out = append(out, &events.DomainAdded{ID: list[i].ID, Name: name})
		}
	}
	for _, d := range list {
		if d.Active && !slices.Contains(names, d.Name) {
			out = append(out, &events.DomainDeactivated{ID: d.ID, Name: d.Name})
		}
	}
	return out
}
