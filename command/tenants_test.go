package command_test

import (
	"strings"
	"sync"
	"testing"

	"tempmail"
	"tempmail/command"
	"tempmail/events"
	"tempmail/projections"
)

// A tenant's life through the commands: made, changed, given keys (told
// once, kept as their hash), one revoked (refused at once), then deleted,
// which ends its keys and its inboxes.
func TestATenantsKeysAndInboxesEndWithIt(t *testing.T) {
	t.Parallel()
	svc := start(t)
	ctx := t.Context()
	c := svc.Commands
	tn, err := c.CreateTenant(ctx, command.TenantSpec{Name: "ci", Quota: events.Quota{Inboxes: 5}})
	if err != nil {
		t.Fatal(err)
	}
	tn, err = c.ChangeTenant(ctx, tn.ID, func(s command.TenantSpec) command.TenantSpec {
		s.Quota.Webhooks = 3
		return s
	})
	if err != nil || tn.Name != "ci" || tn.Quota != (events.Quota{Inboxes: 5, Webhooks: 3}) {
		t.Fatalf("changed: %+v, %v", tn, err)
	}
	key, info, err := c.CreateKey(ctx, tn.ID, command.KeySpec{Name: "pipeline", Scopes: []string{command.ScopeInboxes}})
	if err != nil {
		t.Fatal(err)
	}
	if !command.LooksLikeKey(key) || info.Hash != command.KeyHash(key) || strings.Contains(info.Hash, key) {
		t.Errorf("key %q, its info %+v", key, info)
	}
	if k, err := svc.Views.KeyByHash(ctx, command.KeyHash(key)); err != nil || k.TenantID != tn.ID {
		t.Fatalf("the new key by its hash: %+v, %v", k, err)
	}
	other, otherInfo, err := c.CreateKey(ctx, tn.ID, command.KeySpec{Name: "other", Scopes: []string{command.ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RevokeKey(ctx, otherInfo.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Views.KeyByHash(ctx, command.KeyHash(other)); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a revoked key, once RevokeKey returned: %v, want not found", err)
	}
	if err := c.RevokeKey(ctx, otherInfo.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("revoking it again: %v, want not found", err)
	}

	var owned []string
	for range 3 {
		in, err := c.CreateInbox(ctx, command.Spec{Random: 10,
			Domain: domain(t, svc, svc.Config.Domains[0]), Tenant: tn.ID})
		if err != nil {
			t.Fatal(err)
		}
		owned = append(owned, in.ID)
	}
	anonymous := newInbox(t, svc, "")
	var ids []string
	err = svc.Views.TenantInboxes(ctx, tn.ID, func(in projections.TenantInbox) bool {
		ids = append(ids, in.ID)
		return true
	})
	if err != nil || len(ids) != 3 {
		t.Errorf("the tenant's inboxes: %v, %v; want %v", ids, err, owned)
	}

	if err := c.DeleteTenant(ctx, tn.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Views.KeyByHash(ctx, command.KeyHash(key)); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a deleted tenant's key: %v, want not found", err)
	}
	for _, id := range owned {
		if _, err := svc.Views.Inbox(ctx, id); tempmail.KindOf(err) != tempmail.NotFound {
			t.Errorf("a deleted tenant's inbox %s: %v, want not found", id, err)
		}
	}
	if _, err := svc.Views.Inbox(ctx, anonymous.ID); err != nil {
		t.Errorf("an inbox of no tenant, after the deletion: %v", err)
	}
	if _, _, err := c.CreateKey(ctx, tn.ID, command.KeySpec{Name: "late", Scopes: []string{command.ScopeRead}}); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a key of a deleted tenant: %v, want not found", err)
	}
}

// Racing changes of one tenant are each made, one after another: none is
// lost to another's write.
func TestRacingKeysOfOneTenantAreAllMade(t *testing.T) {
	t.Parallel()
	svc := start(t)
	ctx := t.Context()
	tn, err := svc.Commands.CreateTenant(ctx, command.TenantSpec{Name: "race"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, _, errs[i] = svc.Commands.CreateKey(ctx, tn.ID, command.KeySpec{Name: "k", Scopes: []string{command.ScopeRead}})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if tn, err = svc.Views.Tenant(ctx, tn.ID); err != nil || len(tn.Keys) != n {
		t.Errorf("keys after %d racing creations: %d, %v", n, len(tn.Keys), err)
	}
}
