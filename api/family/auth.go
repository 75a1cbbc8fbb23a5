package family

import (
	"crypto/subtle"
	"net/http"

	"tempmail"
)

// Who may call what (docs/inboxes.md "Authentication"): family A's API token, in
// Authorization: Token, on the inbound webhook and the operator's lookups
// always and on everything else with --require-token; family C's read key
// (--read-key) on the reads that find mail by waiting or by address. The
// inbox token of family C authorizes its own paths (tokenInboxOf). A key
// with the admin scope may do what the API token does; keys.go resolves
// who a request comes from. Every secret is compared in constant time.

var (
	ErrNoCredentials = tempmail.Errorf(tempmail.Unauthorized, "Authentication credentials were not provided.")
	ErrBadToken      = tempmail.Errorf(tempmail.Unauthorized, "Invalid token.")
)

// CheckToken verifies the API token (`Authorization: Token <API_TOKEN>`,
// or Bearer), compared in constant time by authenticate, or a key with the
// admin scope, which may do what the token does.
func (s *Kit) CheckToken(r *http.Request) error {
	return s.CheckAdmin(r)
}

// RequireToken guards endpoints that always need the API token.
func (s *Kit) RequireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.CheckToken(r); err != nil {
			WriteError(w, r, s.Log, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// OptionalToken guards every other family A endpoint when --require-token
// is set: the API token, or any tenant's key (whose scopes and tenant then
// decide what it may do and see: keys.go).
func (s *Kit) OptionalToken(next http.Handler) http.Handler {
	if !s.Config.RequireToken {
		return next
	}
	guarded := s.RequireToken(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if CredentialFrom(r).Key != nil {
			next.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

var (
	errReadKeyMissing = tempmail.Errorf(tempmail.Unauthorized, "read key required")
	errReadKeyWrong   = tempmail.Errorf(tempmail.Forbidden, "invalid read key")
	ErrNoMessages     = tempmail.Errorf(tempmail.NotFound, "No messages")
	ErrNoCode         = tempmail.Errorf(tempmail.NotFound, "No code found")
)

// CheckReadKey enforces --read-key on latest, otp, link and address/latest, in
// constant time.
func (s *Kit) CheckReadKey(r *http.Request) error {
	if s.Config.ReadKey == "" {
		return nil
	}
	key := r.Header.Get("X-Read-Key")
	if key == "" {
		return errReadKeyMissing
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.Config.ReadKey)) != 1 {
		return errReadKeyWrong
	}
	return nil
}
