package api

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/config"
	"tempmail/events"
	"tempmail/fairshare"
	"tempmail/projections"
	"tempmail/webhooks"
)

// Deps are what the handlers work with.
type Deps struct {
	Config config.Config
	Store  *events.Store
	Views  *projections.Reader
	Hooks  *webhooks.Webhooks // outbound webhooks
	Log    *slog.Logger
	// Metrics is served on /metrics, and gets the API's own metrics
	// (observe.go). If nil, a registry of the API's metrics alone is used.
	Metrics *prometheus.Registry
	// Commands change what the service holds (package command).
	Commands *command.Commands
	// Probe names what keeps the service from serving (the NATS
	// connection, a projection partition, a listener); /readyz answers 503
	// while it names anything. Nil: nothing is checked beyond SetReady.
	Probe func(ctx context.Context) []string
	// Advise names what /readyz tells without failing: what the service
	// serves around (events set aside). Nil: nothing.
	Advise func(ctx context.Context) []string
	// Version names the build, to MCP clients.
	Version string
	// Creates limits each client's creations of inboxes and webhook
	// subscriptions; the service shares it with ingest, which makes the
	// inboxes of catch-all domains. Nil: one of the API's own, from
	// Config.CreateRatePerClient.
	Creates *fairshare.Limiter
	// PasswordCost is the bcrypt cost of mail.tm accounts' passwords
	// (package compat/mailtm); 0: bcrypt's default. Tests lower it.
	PasswordCost int
}

// Server is the HTTP side: the families over one Kit, their routes, and
// what every request goes through. Its fields are set once by New.
type Server struct {
	*family.Kit
	ready   atomic.Bool
	router  chi.Router
	metrics *prometheus.Registry
	http    httpMetrics
	probe   func(ctx context.Context) []string
	advise  func(ctx context.Context) []string
	version string
	// passwordCost is the bcrypt cost of mail.tm accounts' passwords.
	passwordCost int

	// doors are the families, each with its paths and its errors' shape
	// (errors.go).
	doors []family.Door

	stopOnce sync.Once
}

// New returns a Server; it answers 503 on /healthz until SetReady(true).
func New(d Deps) *Server {
	if d.Metrics == nil {
		d.Metrics = prometheus.NewRegistry()
	}
	if d.Creates == nil {
		d.Creates = fairshare.New(d.Config.CreateRatePerClient)
	}
	k := &family.Kit{Config: d.Config, Store: d.Store, Views: d.Views, Hooks: d.Hooks, Log: d.Log, Closing: make(chan struct{}),
		Waiters: family.NewWaiters(d.Config.MaxWaiters, d.Config.MaxWaitersPerClient), KeepAlive: family.DefaultKeepAlive,
		Creates: d.Creates, Logins: fairshare.New(d.Config.LoginRatePerClient), Downloads: family.NewDownloads(d.Config.MaxMessageBytes),
		Commands: d.Commands, Names: tempmail.NewNames(d.Config.ReservedNames)}
	s := &Server{Kit: k, metrics: d.Metrics, probe: d.Probe, advise: d.Advise, version: d.Version,
		passwordCost: d.PasswordCost}
	s.doors = s.registerDoors()
	if d.Commands != nil && d.Commands.Names != nil {
		s.Names = d.Commands.Names
	}
	s.http = newHTTPMetrics(s.metrics, func() float64 { return float64(s.Waiters.Held()) })
	s.router = s.routes()
	return s
}

// SetReady marks the service as started (ready) or not; until it is,
// /readyz answers 503.
func (s *Server) SetReady(ok bool) { s.ready.Store(ok) }

// Stopping marks the server as shutting down: /readyz answers 503 and held
// long-poll requests are answered now rather than when their wait ends.
func (s *Server) Stopping() {
	s.ready.Store(false)
	s.stopOnce.Do(func() { close(s.Closing) })
}

// ServeHTTP makes Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// Router is the server's router: which route takes a request, and which
// routes there are (service/apitest checks each answer against the route's
// operation in the document).
func (s *Server) Router() chi.Routes { return s.router }
