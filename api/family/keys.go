package family

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"tempmail"
	"tempmail/command"
	"tempmail/projections"
)

// Who a request comes from, as its Authorization says (docs/tenants.md "Tenants
// and keys"): the operator's API token (the admin key), in `Token` or
// `Bearer`; a tenant's API key (tm_...), in `Bearer` on every family and
// also in `Token` on family A. A key is looked up by its SHA-256 hash, one
// get, and the stored hash compared with the computed one in constant
// time; an unknown, revoked or expired key is refused (401) on every
// path, whatever else the path would take. Anything else in the header
// (an inbox's token in `Token`, where a path takes one) is left to the
// path's own checks.

// Credential is who a request says it comes from; the zero credential is
// no one in particular (the header empty, or naming an inbox's token).
type Credential struct {
	Admin bool                 // the API token
	Key   *projections.KeyInfo // a tenant's key
}

// IsAdmin reports the API token, or a key with the admin scope.
func (c Credential) IsAdmin() bool { return c.Admin || c.Key != nil && c.Key.Has(command.ScopeAdmin) }

// Owner is the tenant whose key made the request, whose the inboxes it
// makes are; "" for none.
func (c Credential) Owner() string {
	if c.Key == nil {
		return ""
	}
	return c.Key.TenantID
}

// Sees reports whether the request may see in at all: without a key, or
// as the admin, every inbox (its id, token or address is the capability,
// as always); with a key, its tenant's inboxes alone.
func (c Credential) Sees(in *projections.Inbox) bool {
	return c.Key == nil || c.IsAdmin() || in.TenantID == c.Key.TenantID
}

var (
	ErrBadKey       = tempmail.Errorf(tempmail.Unauthorized, "Invalid key: unknown, revoked or expired.")
	errNoAdminScope = tempmail.Errorf(tempmail.Forbidden, "this key has no admin scope")
)

type CredentialKey struct{}

// CredentialFrom is the credential authenticate found for r.
func CredentialFrom(r *http.Request) Credential { return CredentialIn(r.Context()) }

// CredentialIn is the credential of the request ctx is of.
func CredentialIn(ctx context.Context) Credential {
	c, _ := ctx.Value(CredentialKey{}).(Credential)
	return c
}

func (c Credential) Need(scope string) error {
	if c.Key.Has(scope) {
		return nil
	}
	return tempmail.Errorf(tempmail.Forbidden, "this key has no %s scope", scope)
}

// MaxCredentialBytes bounds what is compared or hashed of the header.
const MaxCredentialBytes = 256

func (s *Kit) CredentialOf(r *http.Request) (Credential, error) {
	if d := DoorOf(r); d.Credential != nil {
		return d.Credential(r)
	}
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok {
		return Credential{}, nil
	}
	secret = strings.TrimSpace(secret)
	bearer := strings.EqualFold(scheme, "Bearer")
	token := scheme == "Token"
	if !bearer && !token {
		return Credential{}, nil
	}
	if strings.HasPrefix(secret, command.KeyPrefix) && (bearer || DoorOf(r).KeyInToken) {
		k, err := s.KeyOf(r.Context(), secret)
		return Credential{Key: k}, err
	}
	if len(secret) <= MaxCredentialBytes && s.Config.APIToken != "" &&
		subtle.ConstantTimeCompare([]byte(secret), []byte(s.Config.APIToken)) == 1 {
		return Credential{Admin: true}, nil
	}
	if bearer {
		return Credential{}, ErrBadToken // Bearer names a key or the API token, nothing else
	}
	return Credential{}, nil
}

// KeyOf returns the live key that key is: one the views hold, unexpired,
// and that the log does not refuse (its revocation or its tenant's
// deletion stored, which the views may not have applied yet).
func (s *Kit) KeyOf(ctx context.Context, key string) (*projections.KeyInfo, error) {
	if !command.LooksLikeKey(key) {
		return nil, ErrBadKey
	}
	hash := command.KeyHash(key)
	k, err := s.Views.KeyByHash(ctx, hash)
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
		return nil, ErrBadKey
	case err != nil:
		return nil, err
	case subtle.ConstantTimeCompare([]byte(k.Hash), []byte(hash)) != 1 || k.Expired(time.Now()):
		return nil, ErrBadKey
	}
	refused, err := s.Commands.KeyRefused(ctx, &k.KeyInfo)
	switch {
	case err != nil:
		return nil, err
	case refused:
		return nil, ErrBadKey
	}
	return &k.KeyInfo, nil
}

// RequireAdmin guards the tenants' and keys' endpoints: the API token, or
// a key with the admin scope.
func (s *Kit) RequireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.CheckAdmin(r); err != nil {
			WriteError(w, r, s.Log, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Kit) CheckAdmin(r *http.Request) error {
	c := CredentialFrom(r)
	switch {
	case c.IsAdmin():
		return nil
	case c.Key != nil:
		return errNoAdminScope
	case r.Header.Get("Authorization") == "":
		return ErrNoCredentials
	}
	return ErrBadToken
}
