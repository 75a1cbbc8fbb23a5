package family

import (
	"context"
	"net/http"
	"strings"

	"tempmail"
	"tempmail/projections"
)

// TenantScanMax bounds the inboxes of a tenant one request looks at:
// deeper pages and filters over more are refused, or say so.
const TenantScanMax = 10_000

// TenantInboxes calls visit with a tenant's inboxes, newest first, until
// it returns false or an error, or tenantScanMax were visited.
func (s *Kit) TenantInboxes(ctx context.Context, tenant string, visit func(projections.TenantInbox) (bool, error)) error {
	n := 0
	var failed error
	err := s.Views.TenantInboxes(ctx, tenant, func(in projections.TenantInbox) bool {
		n++
		more, err := visit(in)
		failed = err
		return more && err == nil && n < TenantScanMax
	})
	if failed != nil {
		return failed
	}
	return err
}

// KeyTenant returns the tenant asked about: the admin's ?tenant=<id>,
// else the tenant of the request's key; a request without either has none
// to ask about.
func (s *Kit) KeyTenant(r *http.Request) (*projections.Tenant, error) {
	c := CredentialFrom(r)
	if id := r.URL.Query().Get("tenant"); id != "" {
		if !c.IsAdmin() {
			return nil, tempmail.Errorf(tempmail.Forbidden, "tenant= is the admin's: a key asks about its own tenant")
		}
		if !ValidID(id) {
			return nil, AsNotFound(ErrNotFound, NotFoundA)
		}
		t, err := s.Views.Tenant(r.Context(), strings.ToLower(id))
		return t, AsNotFound(err, NotFoundA)
	}
	if c.Key == nil {
		if c.Admin {
			return nil, tempmail.Errorf(tempmail.Invalid, "this is a tenant's: ask with one of its keys, or give tenant=<id>")
		}
		return nil, ErrNoCredentials
	}
	t, err := s.Views.Tenant(r.Context(), c.Key.TenantID)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, ErrBadKey // deleted while the request came
	}
	return t, err
}
