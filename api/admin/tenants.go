package admin

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/events"
	"tempmail/projections"
	"tempmail/wire"
)

// The admin's endpoints for tenants and their keys (docs/tenants.md "Tenants and
// keys"), family A, guarded by RequireAdmin. Every value is bounded here
// before it reaches the log: names by length and alphabet, scopes by the
// fixed set, quotas by maxQuota, expiries by their being in the future and
// within maxKeyLife.

// tenantOut is a tenant as the API shows it.
type tenantOut struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Quota     quotaOut  `json:"quota"`
	Domains   []string  `json:"domains"` // its private domains' names
	CreatedAt wire.Time `json:"created_at"`
}

type quotaOut struct {
	Inboxes        int64 `json:"inboxes"`
	MessagesPerDay int64 `json:"messages_per_day"`
	StorageBytes   int64 `json:"storage_bytes"`
	Webhooks       int64 `json:"webhooks"`
}

// keyOut is a key as the API shows it; Key only when it is made.
type keyOut struct {
	ID        string     `json:"id"`
	TenantID  string     `json:"tenant_id"`
	Name      string     `json:"name"`
	Scopes    []string   `json:"scopes"`
	CreatedAt wire.Time  `json:"created_at"`
	ExpiresAt *wire.Time `json:"expires_at"`
	Key       string     `json:"key,omitempty"`
}

// tenantOutOf shows t, with the names of its private domains of those in
// domains (the views' list).
func tenantOutOf(t *projections.Tenant, domains []projections.Domain) tenantOut {
	out := tenantOut{ID: t.ID, Name: t.Name, Quota: quotaOut(t.Quota), Domains: []string{}, CreatedAt: wire.At(t.CreatedAt)}
	for _, d := range domains {
		out.Domains = append(out.Domains, d.Name)
	}
	return out
}

// tenantOut is t as answers show it, with its private domains (one read).
func (s *API) tenantOut(r *http.Request, t *projections.Tenant) (tenantOut, error) {
	domains, err := s.Views.TenantDomains(r.Context(), t.ID, true)
	return tenantOutOf(t, domains), err
}

func keyOutOf(k *projections.KeyInfo) keyOut {
	out := keyOut{ID: k.ID, TenantID: k.TenantID, Name: k.Name, Scopes: family.OrEmpty(k.Scopes), CreatedAt: wire.At(k.CreatedAt)}
	if !k.ExpiresAt.IsZero() {
		at := wire.At(k.ExpiresAt)
		out.ExpiresAt = &at
	}
	return out
}

// Bounds of what a tenant and a key may be given.
const (
	maxNameBytes = 64
	maxKeyLife   = 10 * 365 * 24 * time.Hour
)

// maxQuota bounds each quota, far above any real use, so that sums and
// comparisons stay well within int64.
var maxQuota = quotaOut{Inboxes: 1_000_000_000, MessagesPerDay: 1_000_000_000, StorageBytes: 1 << 50, Webhooks: 100_000}

// checkName checks a tenant's or a key's name: 1 to 64 bytes of letters,
// digits, space, '.', '_' and '-', not beginning or ending with a space.
func checkName(name string) error {
	if name == "" || len(name) > maxNameBytes || strings.TrimSpace(name) != name {
		return tempmail.Errorf(tempmail.Invalid, "name must be 1 to %d characters, without spaces around it", maxNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" ._-", c) >= 0) {
			return tempmail.Errorf(tempmail.Invalid, "name may hold letters, digits, spaces, '.', '_' and '-' only")
		}
	}
	return nil
}

// quotaIn is a quota as a request gives it: each field may be left out.
type quotaIn struct {
	Inboxes        *int64 `json:"inboxes"`
	MessagesPerDay *int64 `json:"messages_per_day"`
	StorageBytes   *int64 `json:"storage_bytes"`
	Webhooks       *int64 `json:"webhooks"`
}

// over sets in q what in gives, checked: whole numbers from 0 (unlimited)
// to maxQuota's.
func (in *quotaIn) over(q events.Quota) (events.Quota, error) {
	if in == nil {
		return q, nil
	}
	for _, f := range []struct {
		name string
		v    *int64
		max  int64
		dst  *int64
	}{
		{"inboxes", in.Inboxes, maxQuota.Inboxes, &q.Inboxes},
		{"messages_per_day", in.MessagesPerDay, maxQuota.MessagesPerDay, &q.MessagesPerDay},
		{"storage_bytes", in.StorageBytes, maxQuota.StorageBytes, &q.StorageBytes},
		{"webhooks", in.Webhooks, maxQuota.Webhooks, &q.Webhooks},
	} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 || *f.v > f.max {
			return q, tempmail.Errorf(tempmail.Invalid, "quota.%s must be from 0 (unlimited) to %d", f.name, f.max)
		}
		*f.dst = *f.v
	}
	return q, nil
}

// tenantRequest is the body of POST /api/tenants/ and of PATCH.
type tenantRequest struct {
	Name    *string         `json:"name"`
	Quota   *quotaIn        `json:"quota"`
	Domains json.RawMessage `json:"domains"`
}

// maxTenantDomains bounds the domains a tenant is made with; more are
// added one at a time (POST /api/domains/).
const maxTenantDomains = 16

// domains checks the domains a new tenant is to have, as its private
// domains: each a domain name (CheckDomainName), each once.
func (req *tenantRequest) domains() ([]string, error) {
	if len(req.Domains) == 0 || string(req.Domains) == "null" {
		return nil, nil
	}
	var names []string
	if err := json.Unmarshal(req.Domains, &names); err != nil || len(names) > maxTenantDomains {
		return nil, tempmail.Errorf(tempmail.Invalid, "domains must be an array of at most %d domain names", maxTenantDomains)
	}
	for i, name := range names {
		checked, err := family.CheckDomainName(name)
		if err != nil {
			return nil, tempmail.Errorf(tempmail.Invalid, "domains[%d] must be a domain name, such as mail.example.com", i)
		}
		if slices.Contains(names[:i], checked) {
			return nil, tempmail.Errorf(tempmail.Invalid, "domains names %s twice; give each once", checked)
		}
		names[i] = checked
	}
	return names, nil
}

// spec checks req over what a tenant is now (a new one: nothing).
func (req *tenantRequest) spec(now command.TenantSpec, creating bool) (command.TenantSpec, error) {
	if !creating && len(req.Domains) > 0 && string(req.Domains) != "null" {
		return now, tempmail.Errorf(tempmail.Invalid, "domains are given when a tenant is made; add one later with POST /api/domains/")
	}
	if req.Name != nil {
		now.Name = *req.Name
	}
	if creating || req.Name != nil {
		if err := checkName(now.Name); err != nil {
			return now, err
		}
	}
	q, err := req.Quota.over(now.Quota)
	now.Quota = q
	return now, err
}

func (s *API) createTenantA(w http.ResponseWriter, r *http.Request) {
	var req tenantRequest
	err := family.DecodeBody(r, &req)
	var spec command.TenantSpec
	if err == nil {
		spec, err = req.spec(command.TenantSpec{}, true)
	}
	if err == nil {
		spec.Domains, err = req.domains()
	}
	var t *projections.Tenant
	if err == nil {
		t, err = s.Commands.CreateTenant(r.Context(), spec)
	}
	s.answerTenant(w, r, http.StatusCreated, t, err)
}

// listTenantsA lists the tenants, oldest first, paged as every family A
// list is; name= keeps those of that name (names need not be unique).
func (s *API) listTenantsA(w http.ResponseWriter, r *http.Request) {
	q, err := family.ListQuery(r)
	name := r.URL.Query().Get("name")
	if err == nil && len(name) > maxNameBytes {
		err = tempmail.Errorf(tempmail.Invalid, "name must be at most %d bytes", maxNameBytes)
	}
	var list []*projections.Tenant
	if err == nil {
		list, err = s.Views.Tenants(r.Context())
	}
	if name != "" {
		list = slices.DeleteFunc(list, func(t *projections.Tenant) bool { return t.Name != name })
	}
	total := len(list)
	list = list[min(q.Offset, len(list)):]
	list = list[:min(q.Limit, len(list))]
	out := make([]tenantOut, len(list))
	for i := 0; err == nil && i < len(list); i++ {
		out[i], err = s.tenantOut(r, list[i])
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(total))
	family.WritePage(w, len(out), func(i int) any { return out[i] })
}

// tenantID resolves the {tenant} path parameter: a malformed one is no
// tenant.
func tenantID(r *http.Request) (string, error) {
	id := chi.URLParam(r, "tenant")
	if !family.ValidID(id) {
		return "", family.ErrNotFound
	}
	return strings.ToLower(id), nil
}

// errAnonymousTenant refuses the admin's changes to the anonymous tenant,
// which --anonymous-quota alone sets.
var errAnonymousTenant = tempmail.Errorf(tempmail.Conflict,
	"the anonymous tenant is what clients without a key share: --anonymous-quota sets its quota, and it has no keys nor domains")

// changeableTenantID is tenantID for a change the admin makes: never of
// the anonymous tenant.
func changeableTenantID(r *http.Request) (string, error) {
	id, err := tenantID(r)
	if err == nil && id == command.AnonymousTenant {
		return "", errAnonymousTenant
	}
	return id, err
}

func (s *API) getTenantA(w http.ResponseWriter, r *http.Request) {
	id, err := tenantID(r)
	var t *projections.Tenant
	if err == nil {
		t, err = s.Views.Tenant(r.Context(), id)
	}
	s.answerTenant(w, r, http.StatusOK, t, err)
}

func (s *API) changeTenantA(w http.ResponseWriter, r *http.Request) {
	var req tenantRequest
	err := family.DecodeBody(r, &req)
	var id string
	if err == nil {
		id, err = changeableTenantID(r)
	}
	if err == nil {
		_, err = req.spec(command.TenantSpec{Name: "x"}, false) // checked before any read
	}
	var t *projections.Tenant
	if err == nil {
		t, err = s.Commands.ChangeTenant(r.Context(), id, func(now command.TenantSpec) command.TenantSpec {
			next, _ := req.spec(now, false) // checked above: the same values
			return next
		})
	}
	s.answerTenant(w, r, http.StatusOK, t, err)
}

func (s *API) deleteTenantA(w http.ResponseWriter, r *http.Request) {
	id, err := changeableTenantID(r)
	if err == nil {
		err = s.Commands.DeleteTenant(r.Context(), id)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *API) answerTenant(w http.ResponseWriter, r *http.Request, status int, t *projections.Tenant, err error) {
	var out tenantOut
	if err == nil {
		out, err = s.tenantOut(r, t)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	family.WriteJSON(w, status, out)
}

// keyRequest is the body of POST /api/tenants/{tenant}/keys/.
type keyRequest struct {
	Name      string          `json:"name"`
	Scopes    json.RawMessage `json:"scopes"`
	ExpiresAt *time.Time      `json:"expires_at"`
}

func (req *keyRequest) spec(now time.Time) (command.KeySpec, error) {
	if err := checkName(req.Name); err != nil {
		return command.KeySpec{}, err
	}
	scopes, err := checkScopes(req.Scopes)
	if err != nil {
		return command.KeySpec{}, err
	}
	spec := command.KeySpec{Name: req.Name, Scopes: scopes}
	if req.ExpiresAt != nil {
		at := req.ExpiresAt.UTC()
		if !at.After(now) || at.Sub(now) > maxKeyLife {
			return spec, tempmail.Errorf(tempmail.Invalid, "expires_at must be in the future, within %d days", int(maxKeyLife/(24*time.Hour)))
		}
		spec.ExpiresAt = at
	}
	return spec, nil
}

// checkScopes checks a key's scopes: a non-empty array of the fixed set.
func checkScopes(raw json.RawMessage) ([]string, error) {
	return family.NamesOf(raw, "scopes", "scope", command.Scopes(), 16)
}

func (s *API) createKeyA(w http.ResponseWriter, r *http.Request) {
	var req keyRequest
	err := family.DecodeBody(r, &req)
	var id string
	if err == nil {
		id, err = changeableTenantID(r)
	}
	var spec command.KeySpec
	if err == nil {
		spec, err = req.spec(time.Now())
	}
	var key string
	var k *projections.KeyInfo
	if err == nil {
		key, k, err = s.Commands.CreateKey(r.Context(), id, spec)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	out := keyOutOf(k)
	out.Key = key
	family.WriteJSON(w, http.StatusCreated, out)
}

func (s *API) listKeysA(w http.ResponseWriter, r *http.Request) {
	id, err := tenantID(r)
	var t *projections.Tenant
	if err == nil {
		t, err = s.Views.Tenant(r.Context(), id)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	out := make([]keyOut, 0, len(t.Keys))
	for i := range t.Keys {
		out = append(out, keyOutOf(&t.Keys[i]))
	}
	family.WriteJSON(w, http.StatusOK, out)
}

func (s *API) revokeKeyA(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "key")
	err := error(family.ErrNotFound)
	if family.ValidID(id) {
		err = s.Commands.RevokeKey(r.Context(), strings.ToLower(id))
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
