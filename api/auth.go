package api

import (
	"crypto/subtle"
	"net/http"

	"tempmail"
)

// Who may call what (API.md "Authentication"): family A's API token, in
// Authorization: Token, on the inbound webhook and the operator's lookups
// always and on everything else with --require-token; family C's read key
// (--read-key) on the reads that find mail by waiting or by address. The
// inbox token of family C authorizes its own paths (tokenInboxOf). A key
// with the admin scope may do what the API token does; keys.go resolves
// who a request comes from. Every secret is compared in constant time.

var (
	errNoCredentials = tempmail.Errorf(tempmail.Unauthorized, "Authentication credentials were not provided.")
	errBadToken      = tempmail.Errorf(tempmail.Unauthorized, "Invalid token.")
)

// checkToken verifies the API token (`Authorization: Token <API_TOKEN>`,
// or Bearer), compared in constant time by authenticate, or a key with the
// admin scope, which may do what the token does.
func (s *Server) checkToken(r *http.Request) error {
	return s.checkAdmin(r)
}

// requireToken guards endpoints that always need the API token.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.checkToken(r); err != nil {
			writeError(w, r, s.log, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// optionalToken guards every other family A endpoint when --require-token
// is set: the API token, or any tenant's key (whose scopes and tenant then
// decide what it may do and see: keys.go).
func (s *Server) optionalToken(next http.Handler) http.Handler {
	if !s.cfg.RequireToken {
		return next
	}
	guarded := s.requireToken(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if credentialFrom(r).key != nil {
			next.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

var (
	errReadKeyMissing = tempmail.Errorf(tempmail.Unauthorized, "read key required")
	errReadKeyWrong   = tempmail.Errorf(tempmail.Forbidden, "invalid read key")
	errNoMessages     = tempmail.Errorf(tempmail.NotFound, "No messages")
	errNoCode         = tempmail.Errorf(tempmail.NotFound, "No code found")
)

// checkReadKey enforces --read-key on latest, otp, link and address/latest, in
// constant time.
func (s *Server) checkReadKey(r *http.Request) error {
	if s.cfg.ReadKey == "" {
		return nil
	}
	key := r.Header.Get("X-Read-Key")
	if key == "" {
		return errReadKeyMissing
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.ReadKey)) != 1 {
		return errReadKeyWrong
	}
	return nil
}
