package command_test

import (
	"context"
	"slices"
	"testing"

	"tempmail"
	"tempmail/backend"
	"tempmail/command"
)

// publicDomains returns svc's public domains as the views show them, each
// as it shows itself, in id order.
func publicDomains(t *testing.T, svc *backend.Backend) []shownDomain {
	t.Helper()
	list, err := svc.Views.PublicDomains(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	var out []shownDomain
	for _, d := range list {
		out = append(out, shown(d))
	}
	return out
}

// TestSyncDomainsKeepsEachNamesId: a new name gets an id of its own, which
// it keeps whatever the order of the names; a name left out is
// deactivated and forgotten, and comes back as a new domain, of a new id;
// the same names again record nothing.
func TestSyncDomainsKeepsEachNamesId(t *testing.T) {
	t.Parallel()
	svc := start(t)
	syncTo := func(names ...string) {
		t.Helper()
		if err := svc.Commands.SyncDomains(t.Context(), names); err != nil {
			t.Fatalf("SyncDomains(%v): %v", names, err)
		}
	}
	want := func(list ...shownDomain) {
		t.Helper()
		if got := publicDomains(t, svc); !slices.Equal(got, list) {
			t.Errorf("domains %v, want %v", got, list)
		}
	}
	first := shownDomain{ID: 1, Name: "tempmail.test", Active: true}
	want(first) // --domains, at start

	syncTo("tempmail.test", "b.test")
	b := publicDomains(t, svc)[1]
	want(first, shownDomain{ID: b.ID, Name: "b.test", Active: true})
	before := logEnd(t, svc)
	syncTo("b.test", "tempmail.test")
	if got := logEnd(t, svc); got != before {
		t.Errorf("the same domains again recorded %d events", got-before)
	}

	syncTo("b.test")
	want(b)
	syncTo("c.test", "tempmail.test", "b.test")
	got := map[string]shownDomain{}
	for _, d := range publicDomains(t, svc) {
		got[d.Name] = d
	}
	if len(got) != 3 || got["b.test"] != b || got["tempmail.test"].ID <= b.ID || got["c.test"].ID <= b.ID {
		t.Errorf("configured again: %v, want b.test as it was, tempmail.test anew (a new id) and c.test", got)
	}
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
	list := publicDomains(t, svc)
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
	want := shownDomain{ID: added.ID, Name: "added.test", Active: true, API: true, TenantID: tn.ID, CatchAll: true}
	if shown(added) != want {
		t.Errorf("added %v, want %v", added, want)
	}
	if err := svc.Commands.SyncDomains(t.Context(), []string{"tempmail.test"}); err != nil {
		t.Fatal(err)
	}
	if got := publicDomains(t, svc); !slices.Equal(got, []shownDomain{{ID: 1, Name: "tempmail.test", Active: true}}) {
		t.Errorf("after a restart's sync, the public domains: %v", got)
	}
	if got := domain(t, svc, "added.test"); shown(got) != want {
		t.Errorf("after a restart's sync, the added domain: %v", got)
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
