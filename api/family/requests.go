package family

import (
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
)

// RequestInfo is what handlers tell the middleware about their request.
type RequestInfo struct {
	Held  bool   // the request was held open waiting (not a measure of speed)
	KeyID string // the API key that made it, if one did (authenticate)
}

type RequestInfoKey struct{}

// MarkHeld records that r is held open.
func MarkHeld(r *http.Request) {
	if info, ok := r.Context().Value(RequestInfoKey{}).(*RequestInfo); ok {
		info.Held = true
	}
}

// RouteOf is the pattern of the route that served r ("unmatched" for
// none): what metrics and logs name a request by.
func RouteOf(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
		return rc.RoutePattern()
	}
	return "unmatched"
}

// MethodLabel keeps metric labels bounded: a client may send any word as
// its method.
func MethodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ms is a duration in milliseconds, to the microsecond.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
