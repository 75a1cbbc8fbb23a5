package api

import (
	"context"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"tempmail/api/family"
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

// observe counts and times every request by its route pattern (not its
// path: ids would make a label each, and family C paths hold the inbox's
// token, which must not reach a metric or a log), and with --access-log
// logs it.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		info := &family.RequestInfo{}
		next.ServeHTTP(ww, r.WithContext(context.WithValue(r.Context(), family.RequestInfoKey{}, info)))
		took := time.Since(start)
		route := family.RouteOf(r)
		method := family.MethodLabel(r.Method)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		s.http.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
		if !info.Held {
			s.http.durations.WithLabelValues(route, method).Observe(took.Seconds())
		}
		if s.Config.AccessLog {
			attrs := []any{"method", method, "route", route, "status", status, "bytes", ww.BytesWritten(),
				"duration_ms", family.Millis(took), "client", family.ClientIP(r)}
			if info.KeyID != "" {
				attrs = append(attrs, "key", info.KeyID) // its id: never the key
			}
			s.Log.Info("http request", attrs...)
		}
	})
}

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
			s.Log.Error("handler panicked", "method", family.MethodLabel(r.Method), "route", family.RouteOf(r), "panic", rec,
				"stack", string(debug.Stack()))
			family.WriteErrorBody(w, r, http.StatusInternalServerError, "internal error", false)
		}()
		next.ServeHTTP(w, r)
	})
}
