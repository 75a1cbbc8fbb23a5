package api

import (
	"context"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics are the API's own metrics.
type httpMetrics struct {
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer, held func() float64) httpMetrics {
	m := httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_http_requests_total",
			Help: "HTTP requests, by route pattern, method and status."}, []string{"route", "method", "status"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tempmail_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern and method. Held requests (long-polls with wait, event streams) are left out: they last as long as they wait.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}}, []string{"route", "method"}),
	}
	reg.MustRegister(m.requests, m.durations, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tempmail_http_held_requests",
		Help: "Long-polls (wait=) and event streams held open now; --max-waiters bounds them."}, held))
	return m
}

// requestInfo is what handlers tell the middleware about their request.
type requestInfo struct {
	held  bool   // the request was held open waiting (not a measure of speed)
	keyID string // the API key that made it, if one did (authenticate)
}

type requestInfoKey struct{}

// markHeld records that r is held open.
func markHeld(r *http.Request) {
	if info, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		info.held = true
	}
}

// observe counts and times every request by its route pattern (not its
// path: ids would make a label each, and family C paths hold the inbox's
// token, which must not reach a metric or a log), and with --access-log
// logs it.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		info := &requestInfo{}
		next.ServeHTTP(ww, r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info)))
		took := time.Since(start)
		route := routeOf(r)
		method := methodLabel(r.Method)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		s.http.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
		if !info.held {
			s.http.durations.WithLabelValues(route, method).Observe(took.Seconds())
		}
		if s.cfg.AccessLog {
			attrs := []any{"method", method, "route", route, "status", status, "bytes", ww.BytesWritten(),
				"duration_ms", ms(took), "client", clientIP(r)}
			if info.keyID != "" {
				attrs = append(attrs, "key", info.keyID) // its id: never the key
			}
			s.log.Info("http request", attrs...)
		}
	})
}

// routeOf is the pattern of the route that served r ("unmatched" for
// none): what metrics and logs name a request by.
func routeOf(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
		return rc.RoutePattern()
	}
	return "unmatched"
}

// methodLabel keeps metric labels bounded: a client may send any word as
// its method.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ms is a duration in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// recoverer answers 500 to a request whose handler panicked, and logs the
// panic through the service's logger (chi's Recoverer prints to stderr,
// outside --log-format).
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if rec == http.ErrAbortHandler {
				panic(rec) // the server's own way to drop a connection
			}
			s.log.Error("handler panicked", "method", methodLabel(r.Method), "route", routeOf(r), "panic", rec,
				"stack", string(debug.Stack()))
			writeErrorBody(w, r, http.StatusInternalServerError, "internal error", false)
		}()
		next.ServeHTTP(w, r)
	})
}
