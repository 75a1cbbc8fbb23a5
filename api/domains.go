package api

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/net/idna"

	"tempmail"
	"tempmail/command"
	"tempmail/projections"
)

// Domains: family A's list, the admin's addition of a domain at runtime,
// and the choice of a domain for a new inbox. A domain with a tenant is
// private: the tenant's keys see it and make inboxes there; to everyone
// else (the admin aside, who sees it listed) it is as if it did not exist.

// catchAll says whether mail to any address on domain d is taken: it is
// one of --catch-all-domains, or was added with catch_all.
func (s *Server) catchAll(d projections.Domain) bool {
	return d.CatchAll || slices.Contains(s.cfg.CatchAllDomains, d.Name)
}

// catchAllNamed is catchAll for a domain known by its name alone.
func (s *Server) catchAllNamed(ctx context.Context, name string) bool {
	if slices.Contains(s.cfg.CatchAllDomains, name) {
		return true
	}
	named := func(d projections.Domain) bool { return d.Name == name }
	list, err := s.domainsWith(ctx, named)
	if err != nil {
		return true // unknown: the stricter answer
	}
	i := slices.IndexFunc(list, named)
	return i >= 0 && list[i].CatchAll
}

// domainsWith returns the domains as this process's views hold them, or,
// when none of them is one found looks for, as the views' bucket itself
// holds them (projections.Reader.LatestDomains): a domain added through
// another process is there once its addition returned, while this
// process's watcher may still be bringing it (it can be seconds behind, a
// process that was paused). Read-your-writes, as the recipient check
// (package command) reads domains for mail.
func (s *Server) domainsWith(ctx context.Context, found func(projections.Domain) bool) ([]projections.Domain, error) {
	list, _, err := s.views.Domains(ctx)
	if err != nil || slices.ContainsFunc(list, found) {
		return list, err
	}
	return s.views.LatestDomains(ctx)
}

// usable reports whether c may make inboxes on d: a public domain anyone,
// a private one its tenant's keys alone.
func (c credential) usable(d projections.Domain) bool {
	return d.TenantID == "" || c.owner() == d.TenantID
}

// listed reports whether c is shown d in a list of domains: where it may
// make inboxes, and the admin every domain.
func (c credential) listed(d projections.Domain) bool { return c.usable(d) || c.isAdmin() }

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
	return domainA{d.ID, d.Name, d.Active, s.catchAll(d), d.TenantID}
}

func (s *Server) domainsA(w http.ResponseWriter, r *http.Request) {
	c := credentialFrom(r)
	var list []projections.Domain
	var err error
	if c.admin || c.key != nil {
		// The admin, and tenants, to whom the admin adds domains, read the
		// list past this process's cache: one that another node just added
		// is listed on every node once its addition returned. Keyless
		// clients (the page, on every visit) take the cache's.
		list, err = s.views.LatestDomains(r.Context())
	} else {
		list, _, err = s.views.Domains(r.Context())
	}
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	out := []domainA{}
	for _, d := range list {
		if d.Active && c.listed(d) {
			out = append(out, s.domainOutA(d))
		}
	}
	writeJSON(w, http.StatusOK, out)
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

// checkDomainName returns a domain's name as it is stored: lower-case,
// internationalized labels as their A-labels (xn--...), at most 253 bytes
// of labels of 1 to 63 letters, digits and hyphens, two labels at least; a
// trailing dot is dropped.
func checkDomainName(name string) (string, error) {
	bad := tempmail.Errorf(tempmail.Invalid, "name must be a domain name, such as mail.example.com")
	if name == "" || len(name) > 1024 {
		return "", bad
	}
	ascii, err := idna.Lookup.ToASCII(strings.TrimSuffix(name, "."))
	if err != nil {
		return "", bad
	}
	ascii = strings.ToLower(ascii)
	labels := strings.Split(ascii, ".")
	if len(ascii) > 253 || len(labels) < 2 {
		return "", bad
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", bad
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", bad
			}
		}
	}
	return ascii, nil
}

func (s *Server) addDomainA(w http.ResponseWriter, r *http.Request) {
	var req domainRequest
	err := decodeBody(r, &req)
	var spec command.DomainSpec
	if err == nil {
		spec.Name, err = checkDomainName(req.Name)
		spec.CatchAll = req.CatchAll
	}
	if err == nil && req.TenantID != nil && *req.TenantID != "" {
		spec.TenantID = strings.ToLower(*req.TenantID)
		switch {
		case !validID(spec.TenantID):
			err = errNotFound
		case spec.TenantID == command.AnonymousTenant:
			err = errAnonymousTenant
		}
	}
	var d projections.Domain
	if err == nil {
		d, err = s.commands.AddDomain(r.Context(), spec)
	}
	if err != nil {
		writeError(w, r, s.log, familyA, asNotFound(err, notFoundA))
		return
	}
	writeJSON(w, http.StatusCreated, domainAdded{s.domainOutA(d), s.mxHost()})
}

// mxHost is the name an added domain's MX record points to: the SMTP
// server's own (--hostname).
func (s *Server) mxHost() string {
	if s.commands != nil && s.commands.Mail.Hostname != "" {
		return s.commands.Mail.Hostname
	}
	return s.cfg.Hostname
}

// activeDomain returns the first active domain that match accepts, of
// those the request may make inboxes on: a private domain of another
// tenant is not found, as one that does not exist.
func (s *Server) activeDomain(r *http.Request, match func(projections.Domain) bool) (projections.Domain, error) {
	c := credentialFrom(r)
	found := func(d projections.Domain) bool { return d.Active && c.usable(d) && match(d) }
	list, err := s.domainsWith(r.Context(), found)
	if err != nil {
		return projections.Domain{}, err
	}
	if i := slices.IndexFunc(list, found); i >= 0 {
		return list[i], nil
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
