package command_test

import (
	"testing"

	"tempmail"
	"tempmail/command"
	"tempmail/projections"
)

// shownDomain is what a domain shows of itself: its fields but those the
// views keep for the log (its events, its claim).
type shownDomain struct {
	ID                    int
	Name, TenantID, Label string
	Active, API, CatchAll bool
}

func shown(d projections.Domain) shownDomain {
	return shownDomain{ID: d.ID, Name: d.Name, Active: d.Active, API: d.API, TenantID: d.TenantID, CatchAll: d.CatchAll, Label: d.Label}
}

// TestDomainLabelsAndRemoval: a domain added with a label keeps it; a
// relabel changes the label alone, on every field the views keep, and
// survives SyncDomains (the domain was added at runtime); a removed
// domain is gone, neither relabelled nor removed again, and its name is
// free for a new domain, of a new id.
func TestDomainLabelsAndRemoval(t *testing.T) {
	t.Parallel()
	svc := start(t)
	ctx := t.Context()
	tenant, err := svc.Commands.CreateTenant(ctx, command.TenantSpec{Name: "labels"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := svc.Commands.AddDomain(ctx, command.DomainSpec{Name: "ab12cd34.tempmail.test", TenantID: tenant.ID,
		CatchAll: true, Label: "Checkout tests"})
	if err != nil {
		t.Fatal(err)
	}
	want := shownDomain{ID: d.ID, Name: "ab12cd34.tempmail.test", Active: true, API: true, TenantID: tenant.ID,
		CatchAll: true, Label: "Checkout tests"}
	if got := shown(domain(t, svc, "ab12cd34.tempmail.test")); got != want || shown(d) != want {
		t.Fatalf("added %+v, views %+v, want %+v", d, got, want)
	}
	renamed, err := svc.Commands.RelabelDomain(ctx, d.ID, "Renamed")
	want.Label = "Renamed"
	if err != nil || shown(renamed) != want {
		t.Fatalf("relabelled %+v, %v; want %+v", renamed, err, want)
	}
	if err := svc.Commands.SyncDomains(ctx, []string{"tempmail.test"}); err != nil {
		t.Fatal(err)
	}
	if got := shown(domain(t, svc, "ab12cd34.tempmail.test")); got != want {
		t.Errorf("after SyncDomains %+v, want %+v", got, want)
	}
	if list, err := svc.Views.TenantDomains(ctx, tenant.ID, true); err != nil || len(list) != 1 || shown(list[0]) != want {
		t.Errorf("the tenant's domains: %+v, %v", list, err)
	}

	if err := svc.Commands.RemoveDomain(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Views.DomainByName(ctx, d.Name); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a removed domain by name: %v, want NotFound", err)
	}
	if list, err := svc.Views.TenantDomains(ctx, tenant.ID, true); err != nil || len(list) != 0 {
		t.Errorf("removed, the tenant's domains are %+v, %v", list, err)
	}
	if _, err := svc.Commands.RelabelDomain(ctx, d.ID, "again"); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("relabel of a removed domain: %v, want NotFound", err)
	}
	if err := svc.Commands.RemoveDomain(ctx, d.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("removing it again: %v, want NotFound", err)
	}
	again, err := svc.Commands.AddDomain(ctx, command.DomainSpec{Name: d.Name, TenantID: tenant.ID})
	if err != nil || again.ID == d.ID {
		t.Errorf("its name added again: %+v, %v; want a new domain", again, err)
	}
}
