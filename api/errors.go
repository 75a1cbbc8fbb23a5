package api

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"tempmail"
)

// family selects the error body shape (API.md "Error bodies").
type family int

const (
	familyA   family = iota // {"detail": ...} for 401/404/405/415, {"error": ...} otherwise
	familyB                 // {"success": false, "error": ...}
	familyC                 // {"error": ...}
	familyOps               // {"error": ...}
	// The compatible families (compat.go), each in its service's shapes.
	familyMailosaur
	familyMailSlurp
	familyMailTM
)

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

// writeError answers with err's status and the family's body shape. Internal
// errors are logged and answered without their details.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, fam family, err error) {
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
	if kind == tempmail.Unauthorized && fam == familyA {
		w.Header().Set("WWW-Authenticate", "Token")
	}
	writeErrorBody(w, fam, status, msg, detailShaped(err))
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

func writeErrorBody(w http.ResponseWriter, fam family, status int, msg string, detail bool) {
	switch {
	case fam == familyMailosaur:
		writeMailosaurError(w, status, msg)
	case fam == familyMailSlurp:
		writeMailSlurpError(w, status, msg)
	case fam == familyMailTM:
		writeMailTMError(w, status, msg)
	case fam == familyA && (detail || status == http.StatusMethodNotAllowed):
		writeJSON(w, status, map[string]string{"detail": msg})
	case fam == familyB:
		writeJSON(w, status, map[string]any{"success": false, "error": msg})
	default:
		writeJSON(w, status, map[string]string{"error": msg})
	}
}
