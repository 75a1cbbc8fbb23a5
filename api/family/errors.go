package family

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
)

// Door is a family as the server registers it: the paths it serves and
// how it writes an error's body.
type Door struct {
	// Name is the family's: A, B or C, or a compatible family's (its
	// place under /compat/ and in --compat); empty for the operational
	// paths.
	Name string
	// Paths are the prefixes of the family's paths: a request's family is
	// the one with the longest prefix of its path. A prefix that ends in
	// a slash also names the path without it (/compat/mailtm is mail.tm's).
	Paths []string
	// Body writes an error: its status, its message, and whether it is of
	// the kinds family A writes as {"detail": ...} (detailShaped).
	Body func(w http.ResponseWriter, status int, msg string, detail bool)
	// NotFound is what the family says of a path or thing it does not have.
	NotFound string
	// Challenge, when set, is the WWW-Authenticate of the family's 401s.
	Challenge string
	// KeyInToken says a tenant's key is taken in the family's own scheme,
	// `Authorization: Token <key>`, as well as in Bearer.
	KeyInToken bool
	// Scope names the scope a tenant's key needs for a request to path
	// (its route's, without a trailing slash) with method: "" when the
	// handlers check who may call (the API token's endpoints), ScopeRead
	// when reading, which the inboxes scope allows too. Nil: none is
	// checked as the request comes in (the operational paths; the
	// compatible families, whose handlers check scopes).
	Scope func(method, path string) string
	// A compatible family (compat.go) also says who its requests come
	// from its own way (credential), and has routes of its own.
	Credential func(*http.Request) (Credential, error)
	Routes     func(chi.Router)
}

// DoorFor is the door of the family whose prefix of p is longest; the
// first door (the operational paths') for a path under none, such as the
// "*" of OPTIONS * or GET *.
func DoorFor(all []Door, p string) *Door {
	best := &all[0]
	n := -1
	for i := range all {
		for _, prefix := range all[i].Paths {
			if len(prefix) > n && (strings.HasPrefix(p, prefix) || p+"/" == prefix) {
				best, n = &all[i], len(prefix)
			}
		}
	}
	return best
}

type DoorKey struct{}

// DoorOf is the family of a request that came through withFamily, as
// every request the router serves does; that of a path no family serves,
// otherwise.
func DoorOf(r *http.Request) *Door {
	if d, ok := r.Context().Value(DoorKey{}).(*Door); ok && d != nil {
		return d
	}
	return &Door{Body: func(w http.ResponseWriter, status int, msg string, _ bool) {
		WriteJSON(w, status, map[string]string{"error": msg})
	}, NotFound: "Not found"}
}

// NotFoundFor is what the request's family says of what it does not have.
func NotFoundFor(r *http.Request) string { return DoorOf(r).NotFound }

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

// WriteError answers with err's status in the body shape of the request's
// family. Internal errors are logged and answered without their details.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	kind := tempmail.KindOf(err)
	status := statusOf(kind)
	msg := tempmail.Message(err, "internal error")
	if kind == tempmail.Internal || kind == tempmail.Unavailable {
		// By route, never by path: family C paths hold the inbox's token.
		log.Error("request failed", "method", MethodLabel(r.Method), "route", RouteOf(r), "err", err)
	}
	if kind == tempmail.Unavailable {
		w.Header().Set("Retry-After", "1")
	}
	var after RetryAfter
	if errors.As(err, &after) {
		w.Header().Set("Retry-After", strconv.FormatInt(after.Seconds(), 10))
	}
	d := DoorOf(r)
	if kind == tempmail.Unauthorized && d.Challenge != "" {
		w.Header().Set("WWW-Authenticate", d.Challenge)
	}
	d.Body(w, status, msg, detailShaped(err))
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
		return e.Msg == NotFoundA
	}
	return false
}

const NotFoundA = "Not found."

// RetryAfter is the cause of a TooMany error: when the client may try
// again, which WriteError puts in Retry-After.
type RetryAfter time.Duration

func (d RetryAfter) Error() string { return "retry after " + time.Duration(d).String() }

// Seconds is d in whole seconds, rounded up, at least 1.
func (d RetryAfter) Seconds() int64 {
	return max(1, int64((time.Duration(d)+time.Second-1)/time.Second))
}

// TooMany is a TooMany error that says when to try again.
func TooMany(after time.Duration, format string, args ...any) error {
	e := tempmail.Errorf(tempmail.TooMany, format, args...)
	e.Err = RetryAfter(after)
	return e
}

// WriteErrorBody writes an error's body in the shape of the request's
// family, for the answers no error value stands behind (an unknown path, a
// method not served, a handler that panicked).
func WriteErrorBody(w http.ResponseWriter, r *http.Request, status int, msg string, detail bool) {
	DoorOf(r).Body(w, status, msg, detail)
}
