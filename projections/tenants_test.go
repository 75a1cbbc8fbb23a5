package projections

import (
	"context"
	"strings"
	"testing"

	"tempmail"
)

// The views of the workload's tenants: a live tenant with its one live key
// (found by hash and by id), its one live inbox, its one live device; a
// revoked key and a deleted tenant's key refused; a deleted device and a
// deleted tenant's gone, and the deleted tenant.
func TestTenantsAndKeysAreViewed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	inboxes := populate(t, e.store)
	ctx := ctxT(t)
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	tn, err := e.views.Tenant(ctx, "tenant-kept")
	if err != nil {
		t.Fatal(err)
	}
	if tn.Name != "kept" || tn.Quota.Inboxes != 20 || len(tn.Keys) != 1 || tn.Keys[0].ID != "key-kept" || tn.Live != 1 {
		t.Errorf("tenant: %+v", tn)
	}
	k, err := e.views.KeyByHash(ctx, strings.Repeat("k", 64))
	if err != nil || k.ID != "key-kept" || k.TenantID != "tenant-kept" || !k.Has("inboxes") || k.Has("admin") {
		t.Errorf("key by hash: %+v, %v", k, err)
	}
	if ref, err := e.views.KeyByID(ctx, "key-kept"); err != nil || ref.TenantID != "tenant-kept" {
		t.Errorf("key by id: %+v, %v", ref, err)
	}
	for _, hash := range []string{strings.Repeat("r", 64), strings.Repeat("d", 64)} {
		if _, err := e.views.KeyByHash(ctx, hash); tempmail.KindOf(err) != tempmail.NotFound {
			t.Errorf("a revoked key, or a deleted tenant's (%s...): %v, want not found", hash[:1], err)
		}
	}
	if _, err := e.views.Tenant(ctx, "tenant-dropped"); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("deleted tenant: %v, want not found", err)
	}
	ids, err := tenantInboxIDs(e.views, "tenant-kept")
	if err != nil || len(ids) != 1 || ids[0] != inboxes["owned-kept"].id {
		t.Errorf("the tenant's inboxes: %v, %v; want %s alone", ids, err, inboxes["owned-kept"].id)
	}
	if in, err := e.views.Inbox(ctx, ids[0]); err != nil || in.TenantID != "tenant-kept" {
		t.Errorf("the tenant's inbox: %+v, %v", in, err)
	}
	if ids, err := tenantInboxIDs(e.views, "tenant-dropped"); err != nil || len(ids) != 0 {
		t.Errorf("a deleted tenant's inboxes: %v, %v", ids, err)
	}
	if list, err := e.views.TenantDevices(ctx, "tenant-kept", false); err != nil || len(list) != 1 ||
		list[0] != (DeviceItem{ID: "device-kept", Name: "phone"}) {
		t.Errorf("the tenant's devices: %+v, %v", list, err)
	}
	if d, err := e.views.Device(ctx, "device-kept"); err != nil || d.TenantID != "tenant-kept" || string(d.Secret) != "secret of kept" {
		t.Errorf("the tenant's device: %+v, %v", d, err)
	}
	for _, id := range []string{"device-deleted", "device-dropped"} {
		if _, err := e.views.Device(ctx, id); tempmail.KindOf(err) != tempmail.NotFound {
			t.Errorf("a deleted device, or a deleted tenant's (%s): %v, want not found", id, err)
		}
	}
	if list, err := e.views.TenantDevices(ctx, "tenant-dropped", true); err != nil || len(list) != 0 {
		t.Errorf("a deleted tenant's devices: %+v, %v", list, err)
	}
}

// tenantInboxIDs lists a tenant's inboxes' ids, newest first.
func tenantInboxIDs(v *Views, tenant string) ([]string, error) {
	var ids []string
	err := v.TenantInboxes(context.Background(), tenant, func(in TenantInbox) bool {
		ids = append(ids, in.ID)
		return true
	})
	return ids, err
}
