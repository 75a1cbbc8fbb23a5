package command_test

import (
	"testing"

	"tempmail"
	"tempmail/command"
	"tempmail/projections"
)

// TestDomainLabelsAndRemoval: a domain added with a label keeps it; a
// relabel changes the label alone, on every field the views keep, and
// survives SyncDomains (the domain was added at runtime); a removed
// domain is inactive, and neither relabelled nor removed again.
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
	want := projections.Domain{ID: d.ID, Name: "ab12cd34.tempmail.test", Active: true, API: true, TenantID: tenant.ID,
		CatchAll: true, Label: "Checkout tests"}
	if got := domain(t, svc, "ab12cd34.tempmail.test"); got != want || d != want {
		t.Fatalf("added %+v, views %+v, want %+v", d, got, want)
	}
	renamed, err := svc.Commands.RelabelDomain(ctx, d.ID, "Renamed")
	want.Label = "Renamed"
	if err != nil || renamed != want {
		t.Fatalf("relabelled %+v, %v; want %+v", renamed, err, want)
	}
	if err := svc.Commands.SyncDomains(ctx, []string{"tempmail.test"}); err != nil {
		t.Fatal(err)
	}
	if got := domain(t, svc, "ab12cd34.tempmail.test"); got != want {
		t.Errorf("after SyncDomains %+v, want %+v", got, want)
	}

	if err := svc.Commands.RemoveDomain(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if list := domains(t, svc); len(list) != 2 || list[1].ID != d.ID || list[1].Active {
		t.Errorf("removed, the domains are %+v", list)
	}
	if _, err := svc.Commands.RelabelDomain(ctx, d.ID, "again"); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("relabel of a removed domain: %v, want NotFound", err)
	}
	if err := svc.Commands.RemoveDomain(ctx, d.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("removing it again: %v, want NotFound", err)
	}
}
