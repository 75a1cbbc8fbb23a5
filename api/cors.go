package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
)

// What a page of an allowed origin may send and read (docs/errors-and-limits.md, "Calling the API from a browser").
const (
	corsMethods = "GET, POST, DELETE"
	corsHeaders = "Authorization, Content-Type, X-Read-Key, Last-Event-ID"
	corsExpose  = "X-Total-Count"
	// corsMaxAge lets a browser keep a preflight's answer for an hour
	// (Chromium keeps it two hours at most, Firefox a day).
	corsMaxAge = "3600"
)

// cors lets pages of the --cors-origins call the API from a browser: it
// answers their preflights and marks answers to them as readable. Requests
// from other origins go through untouched and get no CORS headers, so the
// browser keeps their pages from reading the answers.
//
// It is our own rather than go-chi/cors or rs/cors: the rules fit on a
// page, the origins are checked once at start-up (config), and a preflight
// must be told from a request for an unknown path, which only our router
// can do (Match).
func (s *Server) cors(next http.Handler) http.Handler {
	allowed := s.Config.CORSOrigins
	if len(allowed) == 0 {
		return next
	}
	anyOrigin := slices.Contains(allowed, "*")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// Answers differ by Origin: a cache must not hand one origin's
		// answer to another.
		h.Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		ok := origin != "" && (anyOrigin || slices.Contains(allowed, origin))
		allowOrigin := origin
		if anyOrigin {
			allowOrigin = "*"
		}
		if method := r.Header.Get("Access-Control-Request-Method"); r.Method == http.MethodOptions && method != "" {
			// A preflight names the method it asks for; the router has no
			// OPTIONS routes, and would answer 405 for a known path.
			rctx := chi.NewRouteContext()
			path := strings.TrimSuffix(r.URL.Path, "/")
			if path == "" {
				path = "/"
			}
			if method == http.MethodHead {
				method = http.MethodGet // served wherever GET is
			}
			if s.router.Match(rctx, method, path) {
				if cur := chi.RouteContext(r.Context()); cur != nil {
					cur.RoutePatterns = append(cur.RoutePatterns, rctx.RoutePattern()) // for metrics and the access log
				}
				if ok {
					h.Set("Access-Control-Allow-Origin", allowOrigin)
					h.Set("Access-Control-Allow-Methods", corsMethods)
					h.Set("Access-Control-Allow-Headers", corsHeaders)
					h.Set("Access-Control-Max-Age", corsMaxAge)
				}
				w.WriteHeader(http.StatusNoContent)
				return
			}
			// An unknown path or a method it does not serve: 404 or 405 as
			// for any request.
		}
		if ok {
			h.Set("Access-Control-Allow-Origin", allowOrigin)
			h.Set("Access-Control-Expose-Headers", corsExpose)
		}
		next.ServeHTTP(w, r)
	})
}
