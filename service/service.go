package service

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"tempmail/api"
	"tempmail/backend"
	"tempmail/broker"
	"tempmail/command"
	"tempmail/config"
	"tempmail/webhooks"
)

// ShutdownGrace bounds a graceful stop: stop accepting, finish in-flight
// requests and conversations, let the views apply what they hold, stop NATS.
const ShutdownGrace = 5 * time.Second

// Options are what a service takes beyond its configuration.
type Options struct {
	Logger  *slog.Logger // nil: nothing is logged
	Version string       // names the build: the start-up line, /metrics, MCP clients
	// Webhooks and Mail, when set, refine the outbound webhooks and the
	// delivery of mail before they serve, in ways no flag does (a
	// resolver, a bound on one step); tests use them.
	Webhooks func(*webhooks.Options)
	Mail     func(*command.Mail)
	// Partitions is the partition count of an event stream made now; 0:
	// events.DefaultPartitions. A stream keeps the count it was made with.
	// Tests use 2, which puts every inbox's events beside others' as 16
	// would, at less cost to start.
	Partitions int
	// DedupeWindow is how long the event stream recognises a publish by
	// its id; 0: events.DedupeWindow. Tests shorten it.
	DedupeWindow time.Duration
	// RestAfter is how long the service must be quiet before it hands
	// memory back (reclaimWhenIdle); 0: 30 s. Tests shorten it.
	RestAfter time.Duration
	// PasswordCost is the bcrypt cost of mail.tm accounts' passwords; 0:
	// bcrypt's default. Tests lower it (the race detector makes a hash
	// of the default cost take seconds).
	PasswordCost int
}

// Service is a running tempmail: its back end (package backend) and the
// HTTP side on it. Its exported fields are its parts, set by Start and not
// changed after; the back end's (Node, Store, Views, Hooks, Commands,
// SMTP...) are its own.
type Service struct {
	*backend.Backend
	// Config is the configuration the service runs with: the back end's,
	// with the API token every process shares when no flag set one.
	Config config.Config
	API    *api.Server

	log        *slog.Logger
	version    string
	partitions int
	dedupe     time.Duration
	// http serves Config.HTTPAddr and https Config.HTTPSAddr, each nil
	// without its address: two servers, since one server's HTTP/2 set-up
	// for plain HTTP leaves it unset for the TLS listener it serves after.
	http, https     *http.Server
	httpLn, httpsLn net.Listener
	serving         sync.WaitGroup // the listeners' Serve, until the HTTP server has stopped
	// requests counts HTTP requests but probes and scrapes: with the
	// events applied, what says the service is busy (reclaimWhenIdle).
	requests     atomic.Uint64
	restAfter    time.Duration
	passwordCost int           // Options.PasswordCost
	reclaims     atomic.Uint64 // memory handed back at rest, for /metrics

	// fatal receives what ends the service against its will (health.go).
	fatal     chan error
	fatalOnce sync.Once
	quorum    quorumProbe   // what /readyz last learnt of the cluster's quorum
	stopping  chan struct{} // closed when Shutdown begins
	stopOnce  sync.Once
}

// Start brings the service up in dependency order and returns once it is
// ready (/readyz answers 200): the back end (backend.Start), with the API
// token shared once the event store is open, then the API and the HTTP
// listener. On failure everything started is stopped. An empty
// Config.HTTPAddr or Config.SMTPAddr opens no such listener.
func Start(ctx context.Context, cfg config.Config, opts Options) (_ *Service, err error) {
	s := newService(cfg, opts)
	defer func() {
		if err != nil {
			sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
			defer cancel()
			s.Shutdown(sctx)
		}
	}()
	reg := prometheus.NewRegistry()
	s.Backend, err = backend.Start(ctx, cfg, backend.Options{Logger: s.log, Version: s.version, Webhooks: opts.Webhooks,
		Mail: opts.Mail, Partitions: s.partitions, DedupeWindow: s.dedupe, Metrics: reg,
		Prepare: func(ctx context.Context, b *backend.Backend) error {
			if cfg.APIToken != "" {
				return nil
			}
			return s.shareToken(ctx, b.Node)
		}})
	if err != nil {
		return s, err
	}
	go func() {
		// What ends the back end ends the service.
		select {
		case err := <-s.Backend.Fatal():
			s.fail(err)
		case <-s.stopping:
		}
	}()
	s.assemble(reg)
	if err = s.listen(); err != nil {
		return s, err
	}
	go s.reclaimWhenIdle()
	s.API.SetReady(true)
	s.log.Info("tempmail ready", "http", s.HTTPAddr(), "smtp", s.SMTPAddr(), "version", s.version, "sync", s.SyncMode(),
		"domains", strings.Join(cfg.Domains, ","), "catch_all_domains", strings.Join(cfg.CatchAllDomains, ","), "data_dir", cfg.DataDir, "views_generation", s.Views.Generation(),
		"log_format", cfg.LogFormat, "access_log", cfg.AccessLog, "cors_origins", strings.Join(cfg.CORSOrigins, ","), httpsAttr(s.HTTPSAddr()))
	return s, nil
}

func newService(cfg config.Config, opts Options) *Service {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "unknown"
	}
	s := &Service{Config: cfg, log: log, version: version, partitions: opts.Partitions, dedupe: opts.DedupeWindow, restAfter: opts.RestAfter, passwordCost: opts.PasswordCost,
		fatal: make(chan error, 1), stopping: make(chan struct{})}
	return s
}

// shareToken sets the family A API token no flag set: the one every
// process of the cluster shares, generated by the first.
func (s *Service) shareToken(ctx context.Context, node *broker.Node) error {
	share := tokenShare{Fresh: rand.Text(), Dir: s.Config.DataDir, Replicas: s.Config.Replicas, Flusher: node.Flusher()}
	var made bool
	err := broker.Settle(ctx, s.log, "share the API token", func(ctx context.Context) (err error) {
		s.Config.APIToken, made, err = share.Token(ctx, node.JS)
		return err
	})
	if made {
		s.log.Info("generated an API token for family A; it is kept in "+share.Path(), "api_token", s.Config.APIToken)
	}
	return err
}

// assemble makes the API on the back end, and registers the process's
// metrics beside the back end's.
func (s *Service) assemble(reg *prometheus.Registry) {
	s.instrument(reg)
	creates := s.Creates
	s.API = api.New(api.Deps{Config: s.Config, Store: s.Store, Views: s.Views.Reader,
		Hooks: s.Hooks, Log: s.log, Metrics: reg, Probe: s.probe, Advise: s.advise, Commands: s.Commands, Creates: creates,
		Version: s.version, PasswordCost: s.passwordCost})
}

// listen opens the HTTP and HTTPS listeners the configuration names, and
// serves the API on them.
func (s *Service) listen() (err error) {
	cfg := s.Config
	if cfg.HTTPAddr == "" && cfg.HTTPSAddr == "" {
		return nil
	}
	// Every request is bounded in time: its headers, its body, and its
	// answer (held long-polls and event streams lift their own deadlines).
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/livez", "/readyz", "/healthz", "/metrics":
			// Probes and scrapes come every few seconds whatever the
			// load; they do not keep a service from its rest.
		default:
			s.requests.Add(1)
		}
		s.API.ServeHTTP(w, r)
	})
	server := func() *http.Server {
		return &http.Server{Handler: counted, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
			WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
			ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	}
	if cfg.HTTPSAddr != "" {
		cert, selfSigned, err := httpsCertificate(cfg, time.Now())
		if err != nil {
			return fmt.Errorf("HTTPS: %w", err)
		}
		if selfSigned != "" {
			s.log.Info("HTTPS serves a self-signed certificate for localhost; clients trust it with NODE_EXTRA_CA_CERTS="+selfSigned+
				" (curl: --cacert)", "https", cfg.HTTPSAddr, "certificate", selfSigned)
		}
		if s.httpsLn, err = net.Listen("tcp", cfg.HTTPSAddr); err != nil {
			return fmt.Errorf("HTTPS listener: %w", err)
		}
		s.https = server()
		s.https.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if cfg.HTTPAddr != "" {
		if s.httpLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
			if s.httpsLn != nil {
				s.httpsLn.Close()
			}
			return fmt.Errorf("HTTP listener: %w", err)
		}
		s.http = server()
		s.serve("HTTP", func() error { return s.http.Serve(s.httpLn) })
	}
	if s.https != nil {
		s.serve("HTTPS", func() error { return s.https.ServeTLS(s.httpsLn, "", "") })
	}
	return nil
}

// serve runs one listener's Serve until the server stops; a listener
// that fails stops the service.
func (s *Service) serve(what string, serve func() error) {
	s.serving.Go(func() {
		if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.fail(fmt.Errorf("%s listener: %w", what, err))
		}
	})
}

// HTTPAddr is the address the HTTP listener is bound to; empty without one.
func (s *Service) HTTPAddr() string {
	if s.httpLn == nil {
		return ""
	}
	return s.httpLn.Addr().String()
}

// httpsAttr names the HTTPS listener in the ready line, after what the
// line has always said (scripts read its first fields); nothing without
// one.
func httpsAttr(addr string) slog.Attr {
	if addr == "" {
		return slog.Attr{}
	}
	return slog.String("https", addr)
}

// HTTPSAddr is the address the HTTPS listener is bound to; empty without
// one.
func (s *Service) HTTPSAddr() string {
	if s.httpsLn == nil {
		return ""
	}
	return s.httpsLn.Addr().String()
}

// Shutdown stops accepting, lets in-flight requests and events finish, and
// stops NATS, all within ctx's deadline. It is safe on a partly started
// Service, and more than once.
func (s *Service) Shutdown(ctx context.Context) {
	s.stopOnce.Do(func() { close(s.stopping) })
	if s.API != nil {
		s.API.Stopping()
	}
	if s.Backend != nil {
		s.Backend.Stopping()
	}
	// The listeners stop accepting at once and finish what is in flight;
	// they get most of the budget, the views and NATS the rest.
	lctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	if s.Backend != nil {
		wg.Go(func() { s.CloseSMTP(lctx) })
	}
	for _, srv := range []*http.Server{s.http, s.https} {
		if srv != nil {
			wg.Go(func() {
				if err := srv.Shutdown(lctx); err != nil {
					srv.Close()
				}
			})
		}
	}
	wg.Wait()
	s.serving.Wait()
	if s.Backend != nil {
		s.Backend.Shutdown(ctx)
	}
}
