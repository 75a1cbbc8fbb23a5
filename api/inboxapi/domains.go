package inboxapi

import (
	"net/http"

	"tempmail/api/family"
	"tempmail/projections"
)

// Domains: family A's list. A domain with a tenant is private: the
// tenant's keys see it and make inboxes there; to everyone else (the admin
// aside, who sees it listed) it is as if it did not exist.

// Domain is a domain as GET /api/domains/ lists it.
type Domain struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	IsActive bool   `json:"is_active"`
	CatchAll bool   `json:"catch_all"` // mail to any address makes its inbox
	// TenantID: a private domain's tenant, shown to the admin and the
	// tenant alone (others are not shown the domain).
	TenantID string `json:"tenant_id,omitempty"`
}

// DomainOf is d as the family shows it.
func (s *API) DomainOf(d projections.Domain) Domain {
	return Domain{d.ID, d.Name, d.Active, s.CatchAll(d), d.TenantID}
}

func (s *API) domainsA(w http.ResponseWriter, r *http.Request) {
	list, err := s.DomainsFor(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	out := []Domain{}
	for _, d := range list {
		out = append(out, s.DomainOf(d))
	}
	family.WriteJSON(w, http.StatusOK, out)
}
