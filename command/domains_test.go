package command_test

import (
	"context"
	"slices"
	"testing"

	"tempmail"
	"tempmail/command"
	"tempmail/projections"
	"tempmail/service"
)

// domains returns svc's domain list as the views show it.
func domains(t *testing.T, svc *service.Service) []projections.Domain {
	t.Helper()
	list, _, err := svc.Views.Domains(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestSyncDomainsKeepsEachNamesId: a new name gets the next id; a name
// left out is deactivated and keeps its id, which it has again when it
// comes back; the same names again record nothing.
func TestSyncDomainsKeepsEachNamesId(t *testing.T) {
	t.Parallel()
	svc := start(t)
	syncTo := func(names ...string) {
		t.Helper()
		if err := svc.Commands.SyncDomains(t.Context(), names); err != nil {
			t.Fatalf("SyncDomains(%v): %v", names, err)
		}
	}
	want := func(list ...projections.Domain) {
		t.Helper()
		if got := domains(t, svc); !slices.Equal(got, list) {
			t.Errorf("domains %v, want %v", got, list)
		}
	}
	want(projections.Domain{ID: 1, Name: "tempmail.test", Active: true}) // --domains, at start

	syncTo("tempmail.test", "b.test")
	want(projections.Domain{ID: 1, Name: "tempmail.test", Active: true}, projections.Domain{ID: 2, Name: "b.test", Active: true})
	before := logEnd(t, svc)
	syncTo("b.test", "tempmail.test")
	if got := logEnd(t, svc); got != before {
		t.Errorf("the same domains again recorded %d events", got-before)
	}

	syncTo("b.test")
	want(projections.Domain{ID: 1, Name: "tempmail.test"}, projections.Domain{ID: 2, Name: "b.test", Active: true})
	syncTo("c.test", "tempmail.test", "b.test")
	want(projections.Domain{ID: 1, Name: "tempmail.test", Active: true}, projections.Domain{ID: 2, Name: "b.test", Active: true},
		projections.Domain{ID: 3, Name: "c.test", Active: true})
}

// TestSyncDomainsOfNodesStartingTogether: nodes starting at once with the
// same new domains each succeed, and each name is recorded once, under
// an id of its own.
func TestSyncDomainsOfNodesStartingTogether(t *testing.T) {
	t.Parallel()
	svc := start(t)
	names := []string{"tempmail.test", "x.test", "y.test", "z.test"}
	for _, err := range race(6, func(ctx context.Context, _ int) error { return svc.Commands.SyncDomains(ctx, names) }) {
		if err != nil {
			t.Errorf("a racing SyncDomains: %v", err)
		}
	}
	list := domains(t, svc)
	ids := map[int]bool{}
	var got []string
	for _, d := range list {
		if ids[d.ID] || !d.Active {
			t.Errorf("domain %+v: its id is taken, or it is inactive", d)
		}
		ids[d.ID] = true
		got = append(got, d.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, names) {
		t.Errorf("domains %v, want each of %v once", list, names)
	}
}

// TestSyncDomainsLeavesAddedDomainsAlone: a domain the admin added at
// runtime is not in --domains, and a restart's SyncDomains keeps it
// active, with its tenant and catch-all; adding a name that exists is a
// Conflict.
func TestSyncDomainsLeavesAddedDomainsAlone(t *testing.T) {
	t.Parallel()
	svc := start(t)
	tn, err := svc.Commands.CreateTenant(t.Context(), command.TenantSpec{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	added, err := svc.Commands.AddDomain(t.Context(), command.DomainSpec{Name: "added.test", TenantID: tn.ID, CatchAll: true})
	if err != nil {
		t.Fatal(err)
	}
	want := projections.Domain{ID: 2, Name: "added.test", Active: true, API: true, TenantID: tn.ID, CatchAll: true}
	if added != want {
		t.Errorf("added %v, want %v", added, want)
	}
	if err := svc.Commands.SyncDomains(t.Context(), []string{"tempmail.test"}); err != nil {
		t.Fatal(err)
	}
	if got := domains(t, svc); !slices.Equal(got, []projections.Domain{{ID: 1, Name: "tempmail.test", Active: true}, want}) {
		t.Errorf("after a restart's sync: %v", got)
	}
	for _, name := range []string{"added.test", "tempmail.test"} {
		if _, err := svc.Commands.AddDomain(t.Context(), command.DomainSpec{Name: name}); tempmail.KindOf(err) != tempmail.Conflict {
			t.Errorf("adding %s again: %v", name, err)
		}
	}
	_, err = svc.Commands.AddDomain(t.Context(), command.DomainSpec{Name: "x.test", TenantID: "4f1f6a4e-3a57-4b8e-9b2c-0c1d2e3f4a5b"})
	if tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a domain of no tenant: %v", err)
	}
}
