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
// a known active one missing from names is deactivated, unless it was
// added at runtime (AddDomain), which --domains does not know. Running it again
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
		if d.Active && !d.API && !slices.Contains(names, d.Name) {
			out = append(out, &events.DomainDeactivated{ID: d.ID, Name: d.Name})
		}
	}
	return out
}

// DomainSpec is a domain the admin adds at runtime; its name checked
// already (lower-case A-labels).
type DomainSpec struct {
	Name     string
	TenantID string // "": public; else private to that tenant
	CatchAll bool
	Label    string // its tenant's name for it, if any
}

// AddDomain records a domain added at runtime and returns it as the views
// now show it. Every node reads the domain list from the views, so the
// domain receives mail everywhere once this returns. An active domain of
// the name is a Conflict; a tenant that does not exist, NotFound. An
// inactive one (dropped from --domains) is made active again under its id.
func (c *Commands) AddDomain(ctx context.Context, spec DomainSpec) (projections.Domain, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if spec.TenantID != "" {
		if _, err := c.Views.Tenant(ctx, spec.TenantID); err != nil {
			return projections.Domain{}, err
		}
	}
	var added projections.Domain
	err := again(ctx, 6, func(int) (bool, error) {
		list, seq, err := c.Views.Domains(ctx)
		if err != nil {
			return false, err
		}
		ev := &events.DomainAdded{ID: 1, Name: spec.Name, API: true, TenantID: spec.TenantID, CatchAll: spec.CatchAll,
			Label: spec.Label}
		for _, d := range list {
			ev.ID = max(ev.ID, d.ID+1)
		}
		if i := slices.IndexFunc(list, func(d projections.Domain) bool { return d.Name == spec.Name }); i >= 0 {
			if list[i].Active {
				return true, tempmail.Errorf(tempmail.Conflict, "domain %s exists already", spec.Name)
			}
			ev.ID = list[i].ID
		}
		ack, err := c.Store.AppendDomainEvent(ctx, ev, seq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // the list changed meanwhile: read it again
		}
		added = projections.Domain{ID: ev.ID, Name: ev.Name, Active: true, API: true, TenantID: ev.TenantID,
			CatchAll: ev.CatchAll, Label: ev.Label}
		return true, c.applied(ctx, ack, err)
	})
	return added, err
}

// RelabelDomain gives the active domain of id a new label (a DomainAdded
// of the domain as it is, but for its label) and returns it as the views
// now show it; a domain not active is NotFound.
func (c *Commands) RelabelDomain(ctx context.Context, id int, label string) (projections.Domain, error) {
	return c.changeDomain(ctx, id, func(d projections.Domain) (events.Payload, projections.Domain) {
		d.Label = label
		return &events.DomainAdded{ID: d.ID, Name: d.Name, API: d.API, TenantID: d.TenantID, CatchAll: d.CatchAll,
			Label: label}, d
	})
}

// RemoveDomain deactivates the active domain of id: mail to it is refused
// (550) from then on. Its inboxes are left as they are.
func (c *Commands) RemoveDomain(ctx context.Context, id int) error {
	_, err := c.changeDomain(ctx, id, func(d projections.Domain) (events.Payload, projections.Domain) {
		d.Active = false
		return &events.DomainDeactivated{ID: d.ID, Name: d.Name}, d
	})
	return err
}

// changeDomain records the event next makes of the active domain of id,
// expecting the domain list unchanged since it was read.
func (c *Commands) changeDomain(ctx context.Context, id int,
	next func(projections.Domain) (events.Payload, projections.Domain)) (projections.Domain, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var out projections.Domain
	err := again(ctx, 6, func(int) (bool, error) {
		list, seq, err := c.Views.Domains(ctx)
		if err != nil {
			return false, err
		}
		i := slices.IndexFunc(list, func(d projections.Domain) bool { return d.ID == id && d.Active })
		if i < 0 {
			return true, tempmail.Errorf(tempmail.NotFound, "no active domain %d", id)
		}
		ev, d := next(list[i])
		ack, err := c.Store.AppendDomainEvent(ctx, ev, seq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // the list changed meanwhile: read it again
		}
		out = d
		return true, c.applied(ctx, ack, err)
	})
	return out, err
}

// dropDomainsOf deactivates a deleted tenant's private domains: mail to
// them is refused (550) from then on, as to any domain not served.
func (c *Commands) dropDomainsOf(ctx context.Context, tenantID string) error {
	return again(ctx, 6, func(int) (bool, error) {
		list, seq, err := c.Views.Domains(ctx)
		if err != nil {
			return false, err
		}
		var ack events.Ack
		for _, d := range list {
			if !d.Active || d.TenantID != tenantID {
				continue
			}
			if ack, err = c.Store.AppendDomainEvent(ctx, &events.DomainDeactivated{ID: d.ID, Name: d.Name}, seq); err != nil {
				break
			}
			seq = ack.Seq
		}
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // the list changed meanwhile: read it again
		}
		return true, c.applied(ctx, ack, err)
	})
}
