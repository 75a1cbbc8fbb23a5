package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"tempmail/api"
	"tempmail/config"
	"tempmail/events"
	"tempmail/ingest"
	"tempmail/projections"
)

// Service is a running tempmail: NATS (embedded or external), the event
// store, the views and their workers, and the listeners. Tests start it in
// process exactly as `tempmail serve` does.
type Service struct {
	Config config.Config
	Node   *events.Node
	Store  *events.Store
	Views  *projections.Views
	API    *api.Server
	SMTP   *ingest.SMTPServer

	log    *slog.Logger
	lock   *os.File
	http   *http.Server
	httpLn net.Listener
	served chan struct{}
}

// Start brings the service up in dependency order and returns once it is
// ready (healthz answers 200). On failure everything started is stopped.
func Start(ctx context.Context, cfg config.Config, log *slog.Logger) (_ *Service, err error) {
	s := &Service{Config: cfg, log: log, served: make(chan struct{})}
	defer func() {
		if err != nil {
			sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
			defer cancel()
			s.Shutdown(sctx)
		}
	}()
	if cfg.NATSURL == "" {
		if s.lock, err = lockDataDir(cfg.DataDir); err != nil {
			return s, err
		}
	}
	if cfg.APIToken == "" {
		if s.Config.APIToken, err = loadOrCreateToken(cfg.DataDir, log); err != nil {
			return s, err
		}
	}
	if s.Node, err = events.StartNode(ctx, events.NodeConfig{DataDir: cfg.DataDir, URL: cfg.NATSURL, Logger: log}); err != nil {
		return s, err
	}
	if s.Store, err = events.OpenStore(ctx, s.Node.JS, events.StoreConfig{}); err != nil {
		return s, err
	}
	if s.Views, err = projections.Open(ctx, s.Node.JS, s.Store, projections.Options{Logger: log, Exclusive: cfg.NATSURL == ""}); err != nil {
		return s, err
	}
	if err = s.Views.Start(ctx); err != nil {
		return s, err
	}
	if err = s.Views.CaughtUp(ctx); err != nil {
		return s, err
	}
	hostname, _ := os.Hostname()
	if hostname == "" {
		hostname = "localhost"
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		s.Views.LagCollector())
	s.Store.Instrument(reg)
	deliverer := &ingest.Deliverer{Store: s.Store, Views: s.Views.Reader, Log: log,
		MaxMessageBytes: cfg.MaxMessageBytes, Hostname: hostname, Metrics: ingest.NewMetrics(reg),
		MaxMessagesPerInbox: cfg.MaxMessagesPerInbox, Retention: cfg.MessageRetention}
	s.API = api.New(api.Deps{Config: s.Config, Store: s.Store, Views: s.Views.Reader, Ingest: deliverer,
		Log: log, Metrics: reg})
	if err = s.API.SyncDomains(ctx, cfg.Domains); err != nil {
		return s, err
	}

	smtpCfg := ingest.SMTPConfig{Addr: cfg.SMTPAddr, MaxConnsPerIP: cfg.SMTPMaxConnsPerIP, RatePerIP: cfg.SMTPRatePerIP}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return s, fmt.Errorf("invalid --tls-cert/--tls-key: %w", err)
		}
		smtpCfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	smtpSrv := ingest.NewSMTPServer(deliverer, smtpCfg)
	if err = smtpSrv.Listen(); err != nil {
		return s, err
	}
	s.SMTP = smtpSrv
	go s.SMTP.Serve()

	if s.httpLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
		return s, fmt.Errorf("HTTP listener: %w", err)
	}
	s.http = &http.Server{Handler: s.API, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		defer close(s.served)
		if err := s.http.Serve(s.httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("HTTP server stopped", "err", err)
		}
	}()
	s.API.SetReady(true)
	log.Info("tempmail ready", "http", s.httpLn.Addr().String(), "smtp", s.SMTP.Addr(), "domains", strings.Join(cfg.Domains, ","),
		"data_dir", cfg.DataDir, "views_generation", s.Views.Generation())
	return s, nil
}

// HTTPAddr is the address the HTTP listener is bound to.
func (s *Service) HTTPAddr() string { return s.httpLn.Addr().String() }

// Shutdown stops accepting, lets in-flight requests and events finish, and
// stops NATS, all within ctx's deadline. It is safe on a partly started
// Service.
func (s *Service) Shutdown(ctx context.Context) {
	if s.API != nil {
		s.API.Stopping()
	}
	// Both listeners stop accepting at once and finish what is in flight;
	// they get most of the budget, the views and NATS the rest.
	lctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	if s.SMTP != nil {
		wg.Go(func() { s.SMTP.Shutdown(lctx) })
	}
	if s.http != nil {
		wg.Go(func() {
			if err := s.http.Shutdown(lctx); err != nil {
				s.http.Close()
			}
			<-s.served
		})
	}
	wg.Wait()
	if s.Views != nil {
		s.Views.Stop()
	}
	if s.Node != nil {
		s.Node.Close(ctx)
	}
	unlockDataDir(s.lock)
}

// rebuild replays the log into fresh views. It holds the data directory's
// lock throughout, so it refuses to run beside a server.
func rebuild(ctx context.Context, cfg config.Config, log *slog.Logger, out io.Writer) error {
	if cfg.NATSURL == "" {
		lock, err := lockDataDir(cfg.DataDir)
		if err != nil {
			return err
		}
		defer unlockDataDir(lock)
		if _, err := os.Stat(filepath.Join(cfg.DataDir, "nats")); err != nil {
			return fmt.Errorf("no event store in %s: nothing to rebuild", cfg.DataDir)
		}
	} else {
		log.Warn("rebuild against an external NATS: make sure no tempmail server is running")
	}
	node, err := events.StartNode(ctx, events.NodeConfig{DataDir: cfg.DataDir, URL: cfg.NATSURL, Logger: log})
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		node.Close(sctx)
	}()
	store, err := events.OpenStore(ctx, node.JS, events.StoreConfig{})
	if err != nil {
		return err
	}
	res, err := projections.Rebuild(ctx, node.JS, store, projections.Options{Logger: log})
	if err != nil {
		return err
	}
	rate := float64(res.Events) / max(res.Took.Seconds(), 1e-9)
	fmt.Fprintf(out, "rebuilt views generation %d: %d events, %d entries in %s (%.0f events/s)\n",
		res.Generation, res.Events, res.Keys, res.Took.Round(time.Millisecond), rate)
	return nil
}

// loadOrCreateToken returns the family A API token kept in the data
// directory, generating it (and logging it once) on first start.
func loadOrCreateToken(dir string, log *slog.Logger) (string, error) {
	path := filepath.Join(dir, "api-token")
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tok := rand.Text()
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("store the generated API token: %w", err)
	}
	log.Info("generated an API token for family A; it is kept in "+path, "api_token", tok)
	return tok, nil
}
