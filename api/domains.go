package api

import (
	"net/http"
	"slices"

	"tempmail"
	"tempmail/projections"
)

// Domains: family A's list, and the choice of a domain for a new inbox.

// catchAll says whether mail to any address on domain is taken.
func (s *Server) catchAll(domain string) bool { return slices.Contains(s.cfg.CatchAllDomains, domain) }

type domainA struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	IsActive bool   `json:"is_active"`
	CatchAll bool   `json:"catch_all"` // mail to any address makes its inbox
}

func (s *Server) domainsA(w http.ResponseWriter, r *http.Request) {
	list, _, err := s.views.Domains(r.Context())
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	out := []domainA{}
	for _, d := range list {
		if d.Active {
			out = append(out, domainA{d.ID, d.Name, true, s.catchAll(d.Name)})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// activeDomain returns the first active domain that match accepts.
func (s *Server) activeDomain(r *http.Request, match func(projections.Domain) bool) (projections.Domain, error) {
	list, _, err := s.views.Domains(r.Context())
	if err != nil {
		return projections.Domain{}, err
	}
	for _, d := range list {
		if d.Active && match(d) {
			return d, nil
		}
	}
	return projections.Domain{}, errNotFound
}

// defaultDomain is the first configured domain (family B's, and family C's
// default), if it is active.
func (s *Server) defaultDomain(r *http.Request) (projections.Domain, error) {
	list, _, err := s.views.Domains(r.Context())
	if err != nil {
		return projections.Domain{}, err
	}
	for _, d := range list {
		if d.Active && d.Name == s.cfg.Domains[0] {
			return d, nil
		}
	}
	return projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "No domains available")
}
