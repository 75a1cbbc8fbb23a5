package api

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/command"
	"tempmail/projections"
)

// Who a request comes from, as its Authorization says (API.md "Tenants
// and keys"): the operator's API token (the admin key), in `Token` or
// `Bearer`; a tenant's API key (tm_...), in `Bearer` on every family and
// also in `Token` on family A. A key is looked up by its SHA-256 hash, one
// get, and the stored hash compared with the computed one in constant
// time; an unknown, revoked or expired key is refused (401) on every
// path, whatever else the path would take. Anything else in the header
// (an inbox's token in `Token`, where a path takes one) is left to the
// path's own checks.

// credential is who a request says it comes from; the zero credential is
// no one in particular (the header empty, or naming an inbox's token).
type credential struct {
	admin bool                 // the API token
	key   *projections.KeyInfo // a tenant's key
}

// isAdmin reports the API token, or a key with the admin scope.
func (c credential) isAdmin() bool { return c.admin || c.key != nil && c.key.Has(command.ScopeAdmin) }

// owner is the tenant whose key made the request, whose the inboxes it
// makes are; "" for none.
func (c credential) owner() string {
	if c.key == nil {
		return ""
	}
	return c.key.TenantID
}

// sees reports whether the request may see in at all: without a key, or
// as the admin, every inbox (its id, token or address is the capability,
// as always); with a key, its tenant's inboxes alone.
func (c credential) sees(in *projections.Inbox) bool {
	return c.key == nil || c.isAdmin() || in.TenantID == c.key.TenantID
}

var (
	errBadKey       = tempmail.Errorf(tempmail.Unauthorized, "Invalid key: unknown, revoked or expired.")
	errNoAdminScope = tempmail.Errorf(tempmail.Forbidden, "this key has no admin scope")
)

type credentialKey struct{}

// credentialFrom is the credential authenticate found for r.
func credentialFrom(r *http.Request) credential { return credentialIn(r.Context()) }

// credentialIn is the credential of the request ctx is of.
func credentialIn(ctx context.Context) credential {
	c, _ := ctx.Value(credentialKey{}).(credential)
	return c
}

// authenticate resolves every request's credential before its handler
// runs, refusing a bad key in the family's shape; the access log names
// the key's id (never the key).
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := s.credentialOf(r)
		if err != nil && s.served(r) {
			writeError(w, r, s.log, err)
			return
		}
		if c.key != nil {
			if info, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
				info.keyID = c.key.ID
			}
			if err := c.mayCall(r); err != nil && s.served(r) {
				writeError(w, r, s.log, err)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), credentialKey{}, c)))
	})
}

// mayCall checks that a key's scopes cover what r asks: the admin scope
// everything; inboxes, making and ending inboxes and messages and reading
// them; read, reading alone (marking read is reading); webhooks, an
// inbox's subscriptions. The endpoints of the API token alone (tenants,
// subscriptions to every inbox, the inbound webhook) check for the admin
// scope themselves.
func (c credential) mayCall(r *http.Request) error {
	if c.isAdmin() || doorOf(r).credential != nil {
		return nil // the compatible families check scopes in their handlers
	}
	p := routePath(r)
	switch {
	case familyOf(r) == familyOps || strings.HasPrefix(p, "/api/tenants") || strings.HasPrefix(p, "/api/keys") ||
		strings.HasPrefix(p, "/api/webhook"):
		return nil
	case strings.HasPrefix(p, "/inboxes/") && strings.Contains(p, "/webhooks"):
		return c.need(command.ScopeWebhooks)
	case r.Method == http.MethodDelete || r.Method == http.MethodPost && (p == "/inboxes" ||
		p == "/api/inboxes/create_inbox" || p == "/api/create-temp-email"):
		return c.need(command.ScopeInboxes)
	case c.key.Has(command.ScopeRead):
		return nil
	}
	return c.need(command.ScopeInboxes)
}

func (c credential) need(scope string) error {
	if c.key.Has(scope) {
		return nil
	}
	return tempmail.Errorf(tempmail.Forbidden, "this key has no %s scope", scope)
}

// served reports a request of an API family for a route the router has:
// only those are refused for a bad key (the operational endpoints and the
// page take none, and a path served by no route answers 404 or 405).
func (s *Server) served(r *http.Request) bool {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet // served wherever GET is (routes.go)
	}
	return familyOf(r) != familyOps && s.router.Match(chi.NewRouteContext(), method, routePath(r))
}

// maxCredentialBytes bounds what is compared or hashed of the header.
const maxCredentialBytes = 256

func (s *Server) credentialOf(r *http.Request) (credential, error) {
	if d := doorOf(r); d.credential != nil {
		return d.credential(r)
	}
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok {
		return credential{}, nil
	}
	secret = strings.TrimSpace(secret)
	bearer := strings.EqualFold(scheme, "Bearer")
	token := scheme == "Token"
	if !bearer && !token {
		return credential{}, nil
	}
	if strings.HasPrefix(secret, command.KeyPrefix) && (bearer || familyOf(r) == familyA) {
		k, err := s.keyOf(r.Context(), secret)
		return credential{key: k}, err
	}
	if len(secret) <= maxCredentialBytes && s.cfg.APIToken != "" &&
		subtle.ConstantTimeCompare([]byte(secret), []byte(s.cfg.APIToken)) == 1 {
		return credential{admin: true}, nil
	}
	if bearer {
		return credential{}, errBadToken // Bearer names a key or the API token, nothing else
	}
	return credential{}, nil
}

// keyOf returns the live key that key is: one the views hold, unexpired,
// and that the log does not refuse (its revocation or its tenant's
// deletion stored, which the views may not have applied yet).
func (s *Server) keyOf(ctx context.Context, key string) (*projections.KeyInfo, error) {
	if !command.LooksLikeKey(key) {
		return nil, errBadKey
	}
	hash := command.KeyHash(key)
	k, err := s.views.KeyByHash(ctx, hash)
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
		return nil, errBadKey
	case err != nil:
		return nil, err
	case subtle.ConstantTimeCompare([]byte(k.Hash), []byte(hash)) != 1 || k.Expired(time.Now()):
		return nil, errBadKey
	}
	refused, err := s.commands.KeyRefused(ctx, &k.KeyInfo)
	switch {
	case err != nil:
		return nil, err
	case refused:
		return nil, errBadKey
	}
	return &k.KeyInfo, nil
}

// requireAdmin guards the tenants' and keys' endpoints: the API token, or
// a key with the admin scope.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.checkAdmin(r); err != nil {
			writeError(w, r, s.log, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) checkAdmin(r *http.Request) error {
	c := credentialFrom(r)
	switch {
	case c.isAdmin():
		return nil
	case c.key != nil:
		return errNoAdminScope
	case r.Header.Get("Authorization") == "":
		return errNoCredentials
	}
	return errBadToken
}
