package api

import (
	"net/http"
	"strings"

	"tempmail/api/family"
	"tempmail/command"
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

// domainRequest is the body of POST /api/domains/.
type domainRequest struct {
	Name     string  `json:"name"`
	TenantID *string `json:"tenant_id"`
	CatchAll bool    `json:"catch_all"`
}

// domainAdded is the answer to POST /api/domains/: the domain, and the MX
// record to publish for it.
type domainAdded struct {
	domainA
	MX string `json:"mx"`
}

func (s *Server) addDomainA(w http.ResponseWriter, r *http.Request) {
	var req domainRequest
	err := family.DecodeBody(r, &req)
	var spec command.DomainSpec
	if err == nil {
		spec.Name, err = family.CheckDomainName(req.Name)
		spec.CatchAll = req.CatchAll
	}
	if err == nil && req.TenantID != nil && *req.TenantID != "" {
		spec.TenantID = strings.ToLower(*req.TenantID)
		switch {
		case !family.ValidID(spec.TenantID):
			err = family.ErrNotFound
		case spec.TenantID == command.AnonymousTenant:
			err = errAnonymousTenant
		}
	}
	var d projections.Domain
	if err == nil {
		d, err = s.Commands.AddDomain(r.Context(), spec)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	family.WriteJSON(w, http.StatusCreated, domainAdded{s.domainOutA(d), s.MXHost()})
}
