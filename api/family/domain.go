package family

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/net/idna"

	"tempmail"
	"tempmail/projections"
)

// CatchAll says whether mail to any address on domain d is taken: it is
// one of --catch-all-domains, or was added with catch_all.
func (s *Kit) CatchAll(d projections.Domain) bool {
	return d.CatchAll || slices.Contains(s.Config.CatchAllDomains, d.Name)
}

// CatchAllNamed is CatchAll for a domain known by its name alone.
func (s *Kit) CatchAllNamed(ctx context.Context, name string) bool {
	if slices.Contains(s.Config.CatchAllDomains, name) {
		return true
	}
	d, err := s.DomainNamed(ctx, name)
	if err != nil {
		return tempmail.KindOf(err) != tempmail.NotFound // unknown: the stricter answer
	}
	return d.CatchAll
}

// DomainNamed returns the live domain of a name as this process's views
// hold it, or, when they do not, as the views' bucket itself holds it
// (projections.Reader.LatestDomainByName): a domain added through another
// process is there once its addition returned, while this process's
// watcher may still be bringing it (it can be seconds behind, a process
// that was paused). Read-your-writes, as the recipient check (package
// command) reads domains for mail.
func (s *Kit) DomainNamed(ctx context.Context, name string) (*projections.Domain, error) {
	d, err := s.Views.DomainByName(ctx, name)
	if tempmail.KindOf(err) == tempmail.NotFound {
		d, err = s.Views.LatestDomainByName(ctx, name)
	}
	return d, err
}

// DomainOfID is DomainNamed for a domain known by its id.
func (s *Kit) DomainOfID(ctx context.Context, id int) (*projections.Domain, error) {
	d, err := s.Views.DomainByID(ctx, id)
	if tempmail.KindOf(err) == tempmail.NotFound {
		d, err = s.Views.LatestDomainByID(ctx, id)
	}
	return d, err
}

// Usable reports whether c may make inboxes on d: a public domain anyone,
// a private one its tenant's keys alone.
func (c Credential) Usable(d projections.Domain) bool {
	return d.TenantID == "" || c.Owner() == d.TenantID
}

// DomainsFor lists the domains r may make inboxes on, in id order: the
// public ones, and a key's tenant's private ones; the admin, the public
// ones and, with ?tenant=<id>, that tenant's. The admin, and tenants, to
// whom the admin adds domains, read them past this process's cache: one
// that another node just added is listed on every node once its addition
// returned. Keyless clients (the page, on every visit) take the cache's.
func (s *Kit) DomainsFor(r *http.Request) ([]projections.Domain, error) {
	c := CredentialFrom(r)
	latest := c.Admin || c.Key != nil
	list, err := s.Views.PublicDomains(r.Context(), latest)
	if err != nil {
		return nil, err
	}
	tenant := c.Owner()
	if id := r.URL.Query().Get("tenant"); id != "" && c.IsAdmin() {
		if !ValidID(id) {
			return nil, AsNotFound(ErrNotFound, NotFoundA)
		}
		tenant = strings.ToLower(id)
	}
	if tenant == "" {
		return list, nil
	}
	private, err := s.Views.TenantDomains(r.Context(), tenant, latest)
	if err != nil {
		return nil, err
	}
	list = append(slices.Clone(list), private...)
	slices.SortFunc(list, func(a, b projections.Domain) int { return a.ID - b.ID })
	return list, nil
}

// CheckDomainName returns a domain's name as it is stored: lower-case,
// internationalized labels as their A-labels (xn--...), at most 253 bytes
// of labels of 1 to 63 letters, digits and hyphens, two labels at least; a
// trailing dot is dropped.
func CheckDomainName(name string) (string, error) {
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

// MXHost is the name an added domain's MX record points to: the SMTP
// server's own (--hostname).
func (s *Kit) MXHost() string {
	if s.Commands != nil && s.Commands.Mail.Hostname != "" {
		return s.Commands.Mail.Hostname
	}
	return s.Config.Hostname
}

// ActiveDomainNamed returns the live domain of a name that the request
// may make inboxes on: a private domain of another tenant is not found,
// as one that does not exist.
func (s *Kit) ActiveDomainNamed(r *http.Request, name string) (projections.Domain, error) {
	d, err := s.DomainNamed(r.Context(), name)
	return s.UsableDomain(r, d, err)
}

// ActiveDomainOfID is ActiveDomainNamed for a domain known by its id.
func (s *Kit) ActiveDomainOfID(r *http.Request, id int) (projections.Domain, error) {
	d, err := s.DomainOfID(r.Context(), id)
	return s.UsableDomain(r, d, err)
}

func (s *Kit) UsableDomain(r *http.Request, d *projections.Domain, err error) (projections.Domain, error) {
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
		return projections.Domain{}, ErrNotFound
	case err != nil:
		return projections.Domain{}, err
	case !CredentialFrom(r).Usable(*d):
		return projections.Domain{}, ErrNotFound
	}
	return *d, nil
}

// DefaultDomain is the first configured domain (family B's, and family C's
// default), if it is live.
func (s *Kit) DefaultDomain(r *http.Request) (projections.Domain, error) {
	d, err := s.Views.DomainByName(r.Context(), s.Config.Domains[0])
	if tempmail.KindOf(err) == tempmail.NotFound || err == nil && d.TenantID != "" {
		return projections.Domain{}, tempmail.Errorf(tempmail.Invalid, "No domains available")
	}
	if err != nil {
		return projections.Domain{}, err
	}
	return *d, nil
}
