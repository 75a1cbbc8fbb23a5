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
	d, err := s.domainNamed(ctx, name)
	if err != nil {
		return tempmail.KindOf(err) != tempmail.NotFound // unknown: the stricter answer
	}
	return d.CatchAll
}

// domainNamed returns the live domain of a name as this process's views
// hold it, or, when they do not, as the views' bucket itself holds it
// (projections.Reader.LatestDomainByName): a domain added through another
// process is there once its addition returned, while this process's
// watcher may still be bringing it (it can be seconds behind, a process
// that was paused). Read-your-writes, as the recipient check (package
// command) reads domains for mail.
func (s *Server) domainNamed(ctx context.Context, name string) (*projections.Domain, error) {
	d, err := s.views.DomainByName(ctx, name)
	if tempmail.KindOf(err) == tempmail.NotFound {
		d, err = s.views.LatestDomainByName(ctx, name)
	}
	return d, err
}

// domainOfID is domainNamed for a domain known by its id.
func (s *Server) domainOfID(ctx context.Context, id int) (*projections.Domain, error) {
	d, err := s.views.DomainByID(ctx, id)
	if tempmail.KindOf(err) == tempmail.NotFound {
		d, err = s.views.LatestDomainByID(ctx, id)
	}
	return d, err
}

// usable reports whether c may make inboxes on d: a public domain anyone,
// a private one its tenant's keys alone.
func (c credential) usable(d projections.Domain) bool {
	return d.TenantID == "" || c.owner() == d.TenantID
}

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
	list, err := s.domainsFor(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := []domainA{}
	for _, d := range list {
		out = append(out, s.domainOutA(d))
	}
	writeJSON(w, http.StatusOK, out)
}

// domainsFor lists the domains r may make inboxes on, in id order: the
// public ones, and a key's tenant's private ones; the admin, the public
// ones and, with ?tenant=<id>, that tenant's. The admin, and tenants, to
// whom the admin adds domains, read them past this process's cache: one
// that another node just added is listed on every node once its addition
// returned. Keyless clients (the page, on every visit) take the cache's.
func (s *Server) domainsFor(r *http.Request) ([]projections.Domain, error) {
	c := credentialFrom(r)
	latest := c.admin || c.key != nil
	list, err := s.views.PublicDomains(r.Context(), latest)
	if err != nil {
		return nil, err
	}
	tenant := c.owner()
	if id := r.URL.Query().Get("tenant"); id != "" && c.isAdmin() {
		if !validID(id) {
			return nil, asNotFound(errNotFound, notFoundA)
		}
		tenant = strings.ToLower(id)
	}
	if tenant == "" {
		return list, nil
	}
	private, err := s.views.TenantDomains(r.Context(), tenant, latest)
	if err != nil {
		return nil, err
	}
	list = append(slices.Clone(list), private...)
	slices.SortFunc(list, func(a, b projections.Domain) int { return a.ID - b.ID })
	return list, nil
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
		writeError(w, r, s.log, asNotFound(err, notFoundA))
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

// activeDomainNamed returns the live domain of a name that the request
// may make inboxes on: a private domain of another tenant is not found,
// as one that does not exist.
func (s *Server) activeDomainNamed(r *http.Request, name string) (projections.Domain, error) {
	d, err := s.domainNamed(r.Context(), name)
	return s.usableDomain(r, d, err)
}

// activeDomainOfID is activeDomainNamed for a domain known by its id.
func (s *Server) activeDomainOfID(r *http.Request, id int) (projections.Domain, error) {
	d, err := s.domainOfID(r.Context(), id)
	return s.usableDomain(r, d, err)
}

func (s *Server) usableDomain(r *http.Request, d *projections.Domain, err error) (projections.Domain, error) {
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
		return projections.Domain{}, errNotFound
	case err != nil:
		return projections.Domain{}, err
	case !credentialFrom(r).usable(*d):
		return projections.Domain{}, errNotFound
	}
	return *d, nil
}

// defaultDomain is the first configured domain (family B's, and family C's
// default), if it is live.
func (s *Server) defaultDomain(r *http.Request) (projections.Domain, error) {
	d, err := s.views.DomainByName(r.Context(), s.cfg.Domains[0])
	if tempmail.KindOf(err) == tempmail.NotFound || err == nil && d.TenantID != "" {
		return projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "No domains available")
	}
	if err != nil {
		return projections.Domain{}, err
	}
	return *d, nil
}
