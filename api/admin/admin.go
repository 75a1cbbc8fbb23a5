package admin

import (
	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
)

// API is the admin's endpoints, over the Kit every family is given.
type API struct{ *family.Kit }

// New returns the admin's endpoints.
func New(k *family.Kit) *API { return &API{Kit: k} }

// Routes registers the admin's routes with the server's router, each
// behind the admin's credential (the API token, or a key with the admin
// scope).
func (s *API) Routes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(s.RequireAdmin)
		r.Post("/api/tenants", s.createTenantA)
		r.Get("/api/tenants", s.listTenantsA)
		r.Get("/api/tenants/{tenant:"+family.UUIDPattern+"}", s.getTenantA)
		r.Patch("/api/tenants/{tenant:"+family.UUIDPattern+"}", s.changeTenantA)
		r.Delete("/api/tenants/{tenant:"+family.UUIDPattern+"}", s.deleteTenantA)
		r.Post("/api/tenants/{tenant:"+family.UUIDPattern+"}/keys", s.createKeyA)
		r.Get("/api/tenants/{tenant:"+family.UUIDPattern+"}/keys", s.listKeysA)
		r.Delete("/api/keys/{key:"+family.UUIDPattern+"}", s.revokeKeyA)
		r.Post("/api/domains", s.addDomainA) // domains.go
	})
	// Fault rules (faults.go): the admin's for the service, a tenant's key
	// with the faults scope for the mail of the tenant's inboxes.
	r.Group(func(r chi.Router) {
		r.Use(s.requireFaults)
		r.Post("/api/faults", s.createFaultA)
		r.Get("/api/faults", s.listFaultsA)
		r.Delete("/api/faults/{fault:"+family.UUIDPattern+"}", s.deleteFaultA)
		r.Get("/api/attempts", s.attemptsA)
	})
}
