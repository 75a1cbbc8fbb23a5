package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
)

// family is one of the API's front doors. It shapes the errors of every
// request to its paths (API.md "Error bodies"): which family a request
// belongs to is found once, from its path, when it comes in (withFamily),
// and every error of the request is written in that family's shape
// (writeError) without naming it again.
type family int

const (
	familyOps family = iota // {"error": ...}: the paths of no API family
	familyA                 // {"detail": ...} for 401/404/405/415, {"error": ...} otherwise
	familyB                 // {"success": false, "error": ...}
	familyC                 // {"error": ...}
	// The compatible families (compat.go), each in its service's shapes.
	familyMailosaur
	familyMailSlurp
	familyMailTM
)

// door is a family as the server registers it: the paths it serves and
// how it writes an error's body.
type door struct {
	fam family
	// paths are the prefixes of the family's paths: a request's family is
	// the one with the longest prefix of its path. A prefix that ends in
	// a slash also names the path without it (/compat/mailtm is mail.tm's).
	paths []string
	// body writes an error: its status, its message, and whether it is of
	// the kinds family A writes as {"detail": ...} (detailShaped).
	body func(w http.ResponseWriter, status int, msg string, detail bool)
	// notFound is what the family says of a path or thing it does not have.
	notFound string
	// challenge, when set, is the WWW-Authenticate of the family's 401s.
	challenge string
	// A compatible family (compat.go) also has a name (its place under
	// /compat/ and in --compat), says who its requests come from its own
	// way (credential), and has routes of its own.
	name       string
	credential func(*http.Request) (credential, error)
	routes     func(chi.Router)
}

// registerDoors registers the families: each says where its paths are and how its
// errors look. A path under none of them is an operational one (/readyz,
// /metrics, /mcp, the page), whose errors are {"error": ...}.
func (s *Server) registerDoors() []door {
	plain := func(w http.ResponseWriter, status int, msg string, _ bool) {
		writeJSON(w, status, map[string]string{"error": msg})
	}
	return []door{
		// First: the door of every path no other door has (doorFor).
		{fam: familyOps, paths: []string{"/"}, body: plain, notFound: "Not found"},
		{fam: familyA, paths: []string{"/api/"}, notFound: notFoundA, challenge: "Token",
			body: func(w http.ResponseWriter, status int, msg string, detail bool) {
				if detail || status == http.StatusMethodNotAllowed {
					writeJSON(w, status, map[string]string{"detail": msg})
					return
				}
				plain(w, status, msg, false)
			}},
		{fam: familyB, paths: []string{"/api/mailstore/", "/api/create-temp-email"}, notFound: "Not found",
			body: func(w http.ResponseWriter, status int, msg string, _ bool) {
				writeJSON(w, status, map[string]any{"success": false, "error": msg})
			}},
		{fam: familyC, paths: []string{"/inboxes", "/address/"}, body: plain, notFound: "Not found"},
		compatDoor(familyMailosaur, "mailosaur", writeMailosaurError, s.mailosaurCredential, s.mailosaurRoutes),
		compatDoor(familyMailSlurp, "mailslurp", writeMailSlurpError, s.mailslurpCredential, s.mailslurpRoutes),
		compatDoor(familyMailTM, "mailtm", writeMailTMError, s.mailtmCredential, s.mailtmRoutes),
	}
}

// doorFor is the door of the family whose prefix of p is longest; the
// first door (the operational paths') for a path under none, such as the
// "*" of OPTIONS * or GET *.
func doorFor(all []door, p string) *door {
	best := &all[0]
	n := -1
	for i := range all {
		for _, prefix := range all[i].paths {
			if len(prefix) > n && (strings.HasPrefix(p, prefix) || p+"/" == prefix) {
				best, n = &all[i], len(prefix)
			}
		}
	}
	return best
}

type doorKey struct{}

// withFamily finds the family of each request, once, from its path.
func (s *Server) withFamily(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := doorFor(s.doors, r.URL.Path)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), doorKey{}, d)))
	})
}

// doorOf is the family of a request that came through withFamily, as
// every request the router serves does; that of a path no family serves,
// otherwise.
func doorOf(r *http.Request) *door {
	if d, ok := r.Context().Value(doorKey{}).(*door); ok && d != nil {
		return d
	}
	return &door{fam: familyOps, body: func(w http.ResponseWriter, status int, msg string, _ bool) {
		writeJSON(w, status, map[string]string{"error": msg})
	}, notFound: "Not found"}
}

// familyOf is the family a request belongs to.
func familyOf(r *http.Request) family { return doorOf(r).fam }

// notFoundFor is what the request's family says of what it does not have.
func notFoundFor(r *http.Request) string { return doorOf(r).notFound }

// statusOf is the one mapping from error kinds to HTTP statuses.
func statusOf(k tempmail.Kind) int {
	switch k {
	case tempmail.Invalid:
		return http.StatusBadRequest
	case tempmail.NotFound:
		return http.StatusNotFound
	case tempmail.Conflict:
		return http.StatusConflict
	case tempmail.Unauthorized:
		return http.StatusUnauthorized
	case tempmail.Forbidden:
		return http.StatusForbidden
	case tempmail.Unavailable:
		return http.StatusServiceUnavailable
	case tempmail.TooLarge:
		return http.StatusRequestEntityTooLarge
	case tempmail.Unsupported:
		return http.StatusUnsupportedMediaType
	case tempmail.Full:
		return http.StatusInsufficientStorage
	case tempmail.TooMany:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// writeError answers with err's status in the body shape of the request's
// family. Internal errors are logged and answered without their details.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	kind := tempmail.KindOf(err)
	status := statusOf(kind)
	msg := tempmail.Message(err, "internal error")
	if kind == tempmail.Internal || kind == tempmail.Unavailable {
		// By route, never by path: family C paths hold the inbox's token.
		log.Error("request failed", "method", methodLabel(r.Method), "route", routeOf(r), "err", err)
	}
	if kind == tempmail.Unavailable {
		w.Header().Set("Retry-After", "1")
	}
	var after retryAfter
	if errors.As(err, &after) {
		w.Header().Set("Retry-After", strconv.FormatInt(after.seconds(), 10))
	}
	d := doorOf(r)
	if kind == tempmail.Unauthorized && d.challenge != "" {
		w.Header().Set("WWW-Authenticate", d.challenge)
	}
	d.body(w, status, msg, detailShaped(err))
}

// detailShaped reports an error that family A writes as {"detail": ...}.
func detailShaped(err error) bool {
	var e *tempmail.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Kind {
	case tempmail.Unauthorized, tempmail.Unsupported:
		return true
	case tempmail.NotFound:
		// Validation-style not-founds ("Domain not found or inactive") are
		// written as {"error": ...}; the generic one as {"detail": ...}.
		return e.Msg == notFoundA
	}
	return false
}

const notFoundA = "Not found."

// retryAfter is the cause of a TooMany error: when the client may try
// again, which writeError puts in Retry-After.
type retryAfter time.Duration

func (d retryAfter) Error() string { return "retry after " + time.Duration(d).String() }

// seconds is d in whole seconds, rounded up, at least 1.
func (d retryAfter) seconds() int64 {
	return max(1, int64((time.Duration(d)+time.Second-1)/time.Second))
}

// tooMany is a TooMany error that says when to try again.
func tooMany(after time.Duration, format string, args ...any) error {
	e := tempmail.Errorf(tempmail.TooMany, format, args...)
	e.Err = retryAfter(after)
	return e
}

// writeErrorBody writes an error's body in the shape of the request's
// family, for the answers no error value stands behind (an unknown path, a
// method not served, a handler that panicked).
func writeErrorBody(w http.ResponseWriter, r *http.Request, status int, msg string, detail bool) {
	doorOf(r).body(w, status, msg, detail)
}
