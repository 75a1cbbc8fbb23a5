package api

import (
	"net/http"

	"tempmail/api/family"
	"tempmail/projections"
)

// Domains: family A's list, the admin's addition of a domain at runtime,
// and the choice of a domain for a new inbox. A domain with a tenant is
// private: the tenant's keys see it and make inboxes there; to everyone
// else (the admin aside, who sees it listed) it is as if it did not exist.

type domainA struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	IsActive bool   `json:"is_active"`
	CatchAll bool   `json:"catch_all"` // mail to any address makes its inbox
	// TenantID: a private domain's tenant, shown to the admin and the
	// tenant alone (others are not shown the domain).
	TenantID string `json:"tenant_id,omitempty"`
}

func (s *Server) domainOutA(d projections.Domain) domainA {
	return domainA{d.ID, d.Name, d.Active, s.CatchAll(d), d.TenantID}
}

func (s *Server) domainsA(w http.ResponseWriter, r *http.Request) {
	list, err := s.DomainsFor(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	out := []domainA{}
	for _, d := range list {
		out = append(out, s.domainOutA(d))
	}
	family.WriteJSON(w, http.StatusOK, out)
}
