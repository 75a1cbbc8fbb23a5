package command

import (
	"context"
	"fmt"
	"slices"

	"tempmail"
	"tempmail/events"
	"tempmail/projections"
)

// Domains. A name is claimed on its own subject in the log, expecting the
// subject's last event as the log holds it (events/domains.go); a tenant's
// private domain is claimed on the tenant's subject too, within the most
// it may have. What is checked here first (the name free, the lists not
// full) only answers early: the stream decides the race.

// MaxTenantServers is the most Mailosaur servers a tenant may have; each
// is a private domain (projections.MaxTenantDomains bounds them all).
const MaxTenantServers = 100

// SyncDomains records the configured domains as events: a name no live
// domain has is added (public; one a tenant holds as private stays so),
// and a configured public domain missing from names is deactivated,
// unless it was added at runtime (AddDomain), which --domains does not
// know. Running it again with the same names publishes nothing. Several
// nodes starting at once race here; each name's subject decides, and the
// loser finds the domain added.
func (c *Commands) SyncDomains(ctx context.Context, names []string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	for _, name := range names {
		_, err := c.AddDomain(ctx, DomainSpec{Name: name, Configured: true})
		if err != nil && tempmail.KindOf(err) != tempmail.Conflict {
			return fmt.Errorf("record domain %s: %w", name, err)
		}
	}
	public, err := c.Views.PublicDomains(ctx, true)
	if err != nil {
		return fmt.Errorf("record domains: %w", err)
	}
	for _, d := range public {
		if !d.API && !slices.Contains(names, d.Name) {
			if err := c.RemoveDomain(ctx, d.ID); err != nil && tempmail.KindOf(err) != tempmail.NotFound {
				return fmt.Errorf("deactivate domain %s: %w", d.Name, err)
			}
		}
	}
	return nil
}

// DomainSpec is a domain to add; its name checked already (lower-case
// A-labels).
type DomainSpec struct {
	Name     string
	TenantID string // "": public; else private to that tenant
	CatchAll bool
	Label    string // its tenant's name for it, if any
	// Server: a Mailosaur server, counted against MaxTenantServers.
	Server bool
	// Configured: one of --domains (SyncDomains), which a restart
	// without it deactivates; else added at runtime (the API), which a
	// restart leaves alone.
	Configured bool
}

// AddDomain records a domain and returns it as the views now show it.
// Every node reads domains from the views, so the domain receives mail
// everywhere once this returns. A live domain of the name is a Conflict;
// a tenant that does not exist, NotFound; a tenant at the most private
// domains (or servers) it may have, or the public domains at theirs,
// Forbidden.
func (c *Commands) AddDomain(ctx context.Context, spec DomainSpec) (projections.Domain, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var added projections.Domain
	if spec.TenantID != "" {
		// Racing claims of one tenant's count, in this process, take turns
		// (Turns): the log still decides between processes.
		release, err := c.Turns.take(ctx, spec.TenantID)
		if err != nil {
			return projections.Domain{}, err
		}
		defer release()
	}
	err := again(ctx, 40, func(int) (bool, error) {
		seq, err := c.domainFree(ctx, spec.Name)
		if err != nil {
			return false, err
		}
		ev := events.DomainAdded{Name: spec.Name, API: !spec.Configured, TenantID: spec.TenantID, CatchAll: spec.CatchAll,
			Label: spec.Label, Server: spec.Server}
		var claim *events.Claim
		if spec.TenantID == "" {
			public, err := c.Views.PublicDomains(ctx, true)
			if err != nil {
				return false, err
			}
			if len(public) >= projections.MaxPublicDomains {
				return false, tempmail.Errorf(tempmail.Forbidden, "there are %d public domains, the most there may be: remove one first",
					projections.MaxPublicDomains)
			}
		} else if claim, err = c.domainClaim(ctx, spec); err != nil || claim == nil {
			return false, err
		}
		ack, err := c.Store.AddDomain(ctx, ev, seq, claim)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // the name or the tenant changed meanwhile: look again
		}
		if err := c.applied(ctx, ack, err); err != nil {
			return false, err
		}
		d, err := c.Views.DomainByID(ctx, int(ack.Seq))
		if tempmail.KindOf(err) == tempmail.NotFound {
			// The views took no domain: the public ones filled up first.
			return false, tempmail.Errorf(tempmail.Forbidden, "there are %d public domains, the most there may be: remove one first",
				projections.MaxPublicDomains)
		}
		if err != nil {
			return false, err
		}
		added = *d
		return true, nil
	})
	return added, err
}

// domainFree returns what a claim of name expects of its subject, or
// Conflict when a live domain has it. The log says what the subject holds
// (the views forget a deactivated domain's events as it goes); a name
// the log says is taken but the views do not show yet is looked at again
// once they have caught up.
func (c *Commands) domainFree(ctx context.Context, name string) (uint64, error) {
	if _, err := c.Views.LatestDomainByName(ctx, name); err == nil {
		return 0, tempmail.Errorf(tempmail.Conflict, "domain %s exists already", name)
	} else if tempmail.KindOf(err) != tempmail.NotFound {
		return 0, err
	}
	seq, last, err := c.Store.DomainLast(ctx, name)
	if err != nil {
		return 0, err
	}
	if _, added := last.(*events.DomainAdded); added {
		// Added, and not shown yet (or refused by the views): wait for
		// them, then look again.
		if err := c.Views.WaitApplied(ctx, events.Ack{Seq: seq, Partition: events.SysPartition}); err != nil {
			return 0, err
		}
		if _, err := c.Views.LatestDomainByName(ctx, name); err == nil {
			return 0, tempmail.Errorf(tempmail.Conflict, "domain %s exists already", name)
		}
	}
	return seq, nil
}

// domainClaim returns the claim of a tenant's new private domain, or nil
// (and no error) when the views are still to apply what the tenant's
// subject holds: then the caller tries again.
func (c *Commands) domainClaim(ctx context.Context, spec DomainSpec) (*events.Claim, error) {
	tn, last, err := c.tenantNow(ctx, spec.TenantID)
	if err != nil || tn == nil {
		return nil, err
	}
	switch {
	case tn.Domains >= projections.MaxTenantDomains:
		return nil, tempmail.Errorf(tempmail.Forbidden, "the tenant has %d private domains, the most it may have: remove one first",
			projections.MaxTenantDomains)
	case spec.Server && tn.Servers >= MaxTenantServers:
		return nil, tempmail.Errorf(tempmail.Forbidden, "the tenant has %d servers, the most it may have: delete one first",
			MaxTenantServers)
	}
	return &events.Claim{Payload: &events.TenantDomainAdded{TenantID: tn.ID, Name: spec.Name, Server: spec.Server},
		Expect: true, ExpectSeq: last}, nil
}

// tenantNow returns a tenant as the views show it once they hold every
// event its subject holds, and the subject's last event, which a claim
// expects: nil (and no error) when the views are behind, after waiting a
// moment for them. A tenant absent or deleted is NotFound.
func (c *Commands) tenantNow(ctx context.Context, id string) (*projections.Tenant, uint64, error) {
	last, err := c.Store.TenantLast(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	tn, err := c.Views.LatestTenant(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	if tn.Seq < last {
		// Behind the subject: the claims just made are not counted yet.
		if err := c.Views.WaitApplied(ctx, events.Ack{Seq: last, Partition: events.SysPartition}); err != nil {
			return nil, 0, err
		}
		return nil, 0, nil
	}
	return tn, last, nil
}

// RelabelDomain gives the live domain of id a new label (a DomainAdded of
// the domain as it is, but for its label) and returns it as the views now
// show it; a domain not live is NotFound.
func (c *Commands) RelabelDomain(ctx context.Context, id int, label string) (projections.Domain, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var out projections.Domain
	err := again(ctx, 10, func(int) (bool, error) {
		d, err := c.Views.LatestDomainByID(ctx, id)
		if err != nil {
			return false, err
		}
		seq, _, err := c.Store.DomainLast(ctx, d.Name)
		if err != nil {
			return false, err
		}
		ev := events.DomainAdded{ID: d.ID, Name: d.Name, API: d.API, TenantID: d.TenantID, CatchAll: d.CatchAll,
			Label: label, Server: d.Server}
		ack, err := c.Store.AddDomain(ctx, ev, seq, nil)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // changed meanwhile: read it again
		}
		if err := c.applied(ctx, ack, err); err != nil {
			return false, err
		}
		out = *d
		out.Label = label
		return true, nil
	})
	return out, err
}

// RemoveDomain deactivates the live domain of id: mail to it is refused
// (550) from then on, and its name is free again. Its inboxes are left as
// they are. A private domain stops counting against its tenant's.
func (c *Commands) RemoveDomain(ctx context.Context, id int) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return again(ctx, 10, func(int) (bool, error) {
		d, err := c.Views.LatestDomainByID(ctx, id)
		if err != nil {
			return false, err
		}
		seq, _, err := c.Store.DomainLast(ctx, d.Name)
		if err != nil {
			return false, err
		}
		var release *events.TenantDomainRemoved
		if d.ClaimSeq != 0 {
			release = &events.TenantDomainRemoved{TenantID: d.TenantID, Name: d.Name, Server: d.Server}
		}
		ack, err := c.Store.RemoveDomain(ctx, events.DomainDeactivated{ID: d.ID, Name: d.Name}, seq, release)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // changed meanwhile: read it again
		}
		return true, c.applied(ctx, ack, err)
	})
}

// dropDomainsOf deactivates a deleted tenant's private domains: mail to
// them is refused (550) from then on, as to any domain not served.
func (c *Commands) dropDomainsOf(ctx context.Context, tenantID string) error {
	list, err := c.Views.TenantDomains(ctx, tenantID, true)
	if err != nil {
		return err
	}
	for _, d := range list {
		if err := c.RemoveDomain(ctx, d.ID); err != nil && tempmail.KindOf(err) != tempmail.NotFound {
			return err
		}
	}
	return nil
}
