package api

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"tempmail/api/admin"
	"tempmail/api/family"
	"tempmail/api/inbound"
	"tempmail/api/inboxapi"
	"tempmail/api/mailboxapi"
	"tempmail/api/mcphttp"
	"tempmail/api/tokenapi"
	"tempmail/command"
	"tempmail/web"
)

// The routes, and what every request goes through: the family a path
// belongs to (which shapes its errors), bounded bodies, 404 and 405 in the
// family's shape.

func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	// Every path is served with and without its trailing slash, no redirect.
	r.Use(middleware.StripSlashes)
	// HEAD wherever GET is served (RFC 9110 §9.3.2): the GET handler
	// answers, and net/http sends its headers without the body.
	r.Use(middleware.GetHead)
	r.Use(s.withFamily)
	r.Use(s.observe)
	r.Use(s.recoverer)
	r.Use(s.cors)
	r.Use(s.boundBodies)
	r.Use(s.authenticate)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		family.WriteErrorBody(w, r, http.StatusNotFound, family.NotFoundFor(r), true)
	})
	r.MethodNotAllowed(s.methodNotAllowed)

	// The page for people (package web), and what it needs to know.
	page := web.Handler()
	r.Get("/", page.ServeHTTP)
	r.Get("/ui/config.json", s.pageConfig)
	r.Get("/ui/*", page.ServeHTTP)

	r.Get("/livez", s.livez)
	r.Get("/readyz", s.readyz)
	r.Get("/healthz", s.readyz) // the name before /readyz, kept
	r.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(s.metrics, promhttp.HandlerOpts{}))
	r.Get("/openapi.json", s.openAPI)

	// Family A: the inbox API.
	r.With(s.RequireToken).Post("/api/webhook/email", inbound.New(s.Kit).Receive)
	inboxapi.New(s.Kit).Routes(r)
	// The admin's: tenants, their keys, and domains (package admin).
	admin.New(s.Kit).Routes(r)

	// Family B: the mailbox API.
	mailboxapi.New(s.Kit).Routes(r)

	// Family C: the token API (package tokenapi).
	tokenapi.New(s.Kit).Routes(r)

	// The families for other services' clients (api/family/compat.go).
	s.compatRoutes(r)

	// The MCP tools for AI agents (package api/mcphttp).
	if s.Config.MCP {
		r.Post("/mcp", mcphttp.Handler(s.Kit, s.version, s).ServeHTTP)
	}
	return r
}

// boundBodies caps every request body as it is read (docs/API.md, "Conventions": 1 MiB; the
// webhook takes a message of up to --max-message-bytes, base64 in JSON),
// and makes the server close a connection whose body ran over.
func (s *Server) boundBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := int64(family.MaxBodyBytes)
		if strings.HasPrefix(r.URL.Path, "/api/webhook/") {
			limit = inbound.MaxRequestBytes(s.Config.MaxMessageBytes)
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// methodNotAllowed answers a request for a path the router serves, but not
// with its method: 405 with the Allow header (RFC 9110 §15.5.6), or, for
// OPTIONS, 204 with Allow (§9.3.7). chi drops the allowed methods when the
// handler is custom, so they are found by asking the router.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	allow := s.allowed(r)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	if r.Method == http.MethodOptions {
		// A CORS preflight that asks for a method the path does not
		// serve is refused as that request would be.
		if want := r.Header.Get("Access-Control-Request-Method"); want == "" || slices.Contains(allow, want) {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	msg := "Method \"" + r.Method + "\" not allowed."
	family.WriteErrorBody(w, r, http.StatusMethodNotAllowed, msg, true)
}

// allowed lists the methods r's path is served with, as Allow gives them:
// HEAD with GET, and OPTIONS with any.
func (s *Server) allowed(r *http.Request) []string {
	path := routePath(r)
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if s.router.Match(chi.NewRouteContext(), m, path) {
			out = append(out, m)
			if m == http.MethodGet {
				out = append(out, http.MethodHead)
			}
		}
	}
	if len(out) > 0 {
		out = append(out, http.MethodOptions)
	}
	return out
}

// routePath is the path the router matches r by: without its trailing
// slash (StripSlashes), "/" itself kept. Within a compatible family's
// subrouter the route context holds the path under its prefix, which the
// root router (s.allowed, s.served) does not match by: the whole path is.
func routePath(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePath != "" && !strings.HasPrefix(r.URL.Path, family.CompatPrefix) {
		return rc.RoutePath
	}
	p := r.URL.RawPath
	if p == "" {
		p = r.URL.Path
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// authenticate resolves every request's credential before its handler
// runs, refusing a bad key in the family's shape; the access log names
// the key's id (never the key).
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := s.CredentialOf(r)
		if err != nil && s.served(r) {
			family.WriteError(w, r, s.Log, err)
			return
		}
		if c.Key != nil {
			if info, ok := r.Context().Value(family.RequestInfoKey{}).(*family.RequestInfo); ok {
				info.KeyID = c.Key.ID
			}
			if err := mayCall(c, r); err != nil && s.served(r) {
				family.WriteError(w, r, s.Log, err)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), family.CredentialKey{}, c)))
	})
}

// served reports a request of an API family for a route the router has:
// only those are refused for a bad key (the operational endpoints and the
// page take none, and a path served by no route answers 404 or 405).
func (s *Server) served(r *http.Request) bool {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet // served wherever GET is (routes.go)
	}
	return family.DoorOf(r).Name != "" && s.router.Match(chi.NewRouteContext(), method, routePath(r))
}

// mayCall checks that a key's scopes cover what r asks: the admin scope
// everything; inboxes, making and ending inboxes and messages and reading
// them; read, reading alone (marking read is reading); webhooks, an
// inbox's subscriptions. The endpoints of the API token alone (tenants,
// subscriptions to every inbox, the inbound webhook) check for the admin
// scope themselves.
func mayCall(c family.Credential, r *http.Request) error {
	d := family.DoorOf(r)
	if c.IsAdmin() || d.Scope == nil {
		return nil
	}
	switch need := d.Scope(r.Method, routePath(r)); {
	case need == "":
		return nil
	case need == command.ScopeRead && c.Key.Has(command.ScopeRead):
		return nil
	case need == command.ScopeRead:
		return c.Need(command.ScopeInboxes)
	default:
		return c.Need(need)
	}
}
