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
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"tempmail"
	"tempmail/api"
	"tempmail/broker"
	"tempmail/command"
	"tempmail/config"
	"tempmail/events"
	"tempmail/fairshare"
	"tempmail/ingest"
	"tempmail/mailauth"
	"tempmail/projections"
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

// Service is a running tempmail. Its exported fields are its parts, set
// by Start and not changed after.
type Service struct {
	Config   config.Config
	Node     *broker.Node
	Store    *events.Store
	Views    *projections.Views
	Hooks    *webhooks.Webhooks // outbound webhooks
	Commands *command.Commands
	API      *api.Server
	SMTP     *ingest.SMTPServer // nil when Config.SMTPAddr is empty

	log        *slog.Logger
	version    string
	partitions int
	dedupe     time.Duration
	lock       *os.File
	disk       *broker.DiskGuard // nil with an external NATS, whose disk is not ours
	http       *http.Server      // nil when Config.HTTPAddr is empty
	httpLn     net.Listener
	served     chan struct{} // closed when the HTTP server has stopped serving
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
// ready (/readyz answers 200). On failure everything started is stopped.
// An empty Config.HTTPAddr or Config.SMTPAddr opens no such listener.
func Start(ctx context.Context, cfg config.Config, opts Options) (_ *Service, err error) {
	s := newService(cfg, opts)
	defer func() {
		if err != nil {
			sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
			defer cancel()
			s.Shutdown(sctx)
		}
	}()
	if err = s.openStore(ctx); err != nil {
		return s, err
	}
	go func() {
		select {
		case <-s.Node.Lost():
			s.fail(fmt.Errorf("the connection to NATS is closed: %w", s.Node.LostErr()))
		case <-s.stopping:
		}
	}()
	if s.disk != nil {
		go s.watchDisk()
	}
	if cfg.APIToken == "" {
		if err = s.shareToken(ctx); err != nil {
			return s, err
		}
	}
	if err = s.openViews(ctx, opts.Webhooks); err != nil {
		return s, err
	}
	reg := prometheus.NewRegistry()
	if err = s.assemble(ctx, reg, opts.Mail); err != nil {
		return s, err
	}
	if err = s.listen(reg); err != nil {
		return s, err
	}
	go s.reclaimWhenIdle()
	// The definitions of every stream and consumer opened or changed on
	// the way, on disk before the record names the streams.
	if err = s.Node.Flusher().FlushAll(); err != nil {
		return s, fmt.Errorf("flush the store's definitions: %w", err)
	}
	s.record(ctx)
	s.API.SetReady(true)
	s.log.Info("tempmail ready", "http", s.HTTPAddr(), "smtp", s.SMTPAddr(), "version", s.version, "sync", syncMode(cfg),
		"domains", strings.Join(cfg.Domains, ","), "catch_all_domains", strings.Join(cfg.CatchAllDomains, ","), "data_dir", cfg.DataDir, "views_generation", s.Views.Generation(),
		"log_format", cfg.LogFormat, "access_log", cfg.AccessLog, "cors_origins", strings.Join(cfg.CORSOrigins, ","))
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
		served: make(chan struct{}),
		fatal:  make(chan error, 1), stopping: make(chan struct{})}
	return s
}

// exclusive says this process alone applies events: a single embedded
// node, which may then reset its consumers at start and rebuild outdated
// views by itself; in a cluster or on an external NATS others may be at it.
func (s *Service) exclusive() bool { return s.Config.NATSURL == "" && s.Config.ClusterName == "" }

// openStore locks the data directory (when it holds the store), starts or
// reaches NATS and opens the event store: what both serving and a rebuild
// need.
func (s *Service) openStore(ctx context.Context) (err error) {
	cfg := s.Config
	if cfg.NATSURL == "" {
		if s.lock, err = lockDataDir(cfg.DataDir); err != nil {
			return err
		}
	}
	if s.Node, err = broker.StartNode(ctx, nodeConfig(cfg, s.log)); err != nil {
		return err
	}
	if cfg.NATSURL == "" && cfg.MinFreeDisk > 0 {
		s.disk = broker.NewDiskGuard(cfg.DataDir, cfg.MinFreeDisk)
	}
	var rec *storeRecord
	if s.holdsStore() {
		// Before anything is made: a stream made now over one that is
		// missing would hide the loss.
		if rec, err = s.checkRecord(ctx); err != nil {
			return err
		}
	}
	if err = broker.Settle(ctx, s.log, "open the event stream", func(ctx context.Context) (err error) {
		s.Store, err = events.OpenStore(ctx, s.Node.JS, storeConfig(cfg, s.partitions, s.dedupe, s.Node.Flusher()))
		return err
	}); err != nil {
		return err
	}
	return s.reportLoss(ctx, rec)
}

// shareToken sets the family A API token no flag set: the one every
// process of the cluster shares, generated by the first.
func (s *Service) shareToken(ctx context.Context) error {
	share := tokenShare{Fresh: rand.Text(), Dir: s.Config.DataDir, Replicas: s.Config.Replicas, Flusher: s.Node.Flusher()}
	var made bool
	err := broker.Settle(ctx, s.log, "share the API token", func(ctx context.Context) (err error) {
		s.Config.APIToken, made, err = share.Token(ctx, s.Node.JS)
		return err
	})
	if made {
		s.log.Info("generated an API token for family A; it is kept in "+share.Path(), "api_token", s.Config.APIToken)
	}
	return err
}

// openViews opens the webhook outbox and the views, and starts the
// projection workers; it returns once the views hold every event the log
// held when it was called.
func (s *Service) openViews(ctx context.Context, refine func(*webhooks.Options)) (err error) {
	cfg := s.Config
	hookOpts := webhooks.Options{Replicas: cfg.Replicas, Logger: s.log, RetrySchedule: cfg.WebhookRetrySchedule,
		AllowPrivate: cfg.WebhookAllowPrivate, Exclusive: s.exclusive(), Version: s.version, Flusher: s.Node.Flusher()}
	if refine != nil {
		refine(&hookOpts)
	}
	if err = broker.Settle(ctx, s.log, "open the webhook outbox", func(ctx context.Context) (err error) {
		s.Hooks, err = webhooks.Open(ctx, s.Node.JS, hookOpts)
		return err
	}); err != nil {
		return err
	}
	// The views have a connection of their own, so that their writes do
	// not queue behind the API's and ingest's publishes.
	viewsJS, err := s.Node.Lane()
	if err != nil {
		return err
	}
	viewOpts := projections.Options{Logger: s.log, Replicas: cfg.Replicas, Exclusive: s.exclusive(), Outbox: s.Hooks,
		Rules: rules(cfg)}
	err = s.openCurrentViews(ctx, viewsJS, viewOpts)
	if rebuildable(err) && s.exclusive() {
		// Views of an earlier version, or views a power cut took from:
		// this process alone holds the data directory, so it builds them
		// anew from the log, once.
		s.log.Warn("rebuilding the views from the log before serving", "why", err)
		var res projections.RebuildResult
		if res, err = projections.Rebuild(ctx, viewsJS, s.Store, viewOpts); err == nil {
			s.log.Info("views rebuilt", "generation", res.Generation, "events", res.Events, "took", res.Took.Round(time.Millisecond))
			err = s.openCurrentViews(ctx, viewsJS, viewOpts)
		}
	}
	if rebuildable(err) {
		// In a cluster a rebuild needs a majority of the nodes running,
		// and it is safe beside processes of the earlier release, whose
		// events it leaves to the new views' workers from where it ended.
		return fmt.Errorf("%w; with several processes, run `tempmail rebuild` with this process's configuration while the others run, then start it, then start the others again one after the other", err)
	}
	if err != nil {
		return err
	}
	if err = broker.Settle(ctx, s.log, "start the projection workers", s.Views.Start); err != nil {
		return err
	}
	return s.Views.CaughtUp(ctx)
}

// assemble makes the parts that serve: the commands (mail's delivery
// among them) and the API, and records the configured domains.
func (s *Service) assemble(ctx context.Context, reg *prometheus.Registry, refine func(*command.Mail)) error {
	cfg := s.Config
	hostname := cfg.Hostname
	if hostname == "" {
		hostname = machineName()
	}
	var auth *mailauth.Verifier
	if cfg.AuthChecks {
		dns, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: cfg.DNSResolver})
		if err != nil {
			return fmt.Errorf("invalid --dns-resolver: %w", err)
		}
		auth = &mailauth.Verifier{DNS: dns}
	}
	s.instrument(reg)
	s.Hooks.Start(s.Views.Reader)
	// One share of creations per client, whether it makes inboxes over
	// HTTP or by mail to a catch-all domain.
	creates := fairshare.New(cfg.CreateRatePerClient)
	s.Commands = &command.Commands{Store: s.Store, Views: s.Views.Reader, Hooks: s.Hooks, Disk: s.disk,
		Names: tempmail.NewNames(cfg.ReservedNames), Log: s.log, Metrics: command.NewMetrics(reg), Turns: command.NewTurns(),
		Mail: command.Mail{MaxMessageBytes: cfg.MaxMessageBytes, Hostname: hostname, Retention: cfg.MessageRetention,
			PlusAddressing: cfg.PlusAddressing, CatchAll: cfg.CatchAllDomains, Creates: creates, Auth: auth}}
	if refine != nil {
		refine(&s.Commands.Mail)
	}
	s.API = api.New(api.Deps{Config: s.Config, Store: s.Store, Views: s.Views.Reader,
		Hooks: s.Hooks, Log: s.log, Metrics: reg, Probe: s.probe, Advise: s.advise, Commands: s.Commands, Creates: creates,
		Version: s.version, PasswordCost: s.passwordCost})
	if err := s.Commands.SyncDomains(ctx, cfg.Domains); err != nil {
		return err
	}
	if q := cfg.AnonymousQuota; q != nil {
		err := s.Commands.SetAnonymousQuota(ctx, events.Quota{Inboxes: q.Inboxes, MessagesPerDay: q.MessagesPerDay,
			StorageBytes: q.StorageBytes, Webhooks: q.Webhooks})
		if err != nil {
			return fmt.Errorf("record --anonymous-quota: %w", err)
		}
	}
	return nil
}

// listen opens the listeners the configuration names, and serves on them.
func (s *Service) listen(reg *prometheus.Registry) (err error) {
	cfg := s.Config
	if cfg.SMTPAddr != "" {
		smtpCfg := ingest.SMTPConfig{Addr: cfg.SMTPAddr, MaxConns: cfg.SMTPMaxConns, MaxConnsPerIP: cfg.SMTPMaxConnsPerIP,
			RatePerIP: cfg.SMTPRatePerIP, MaxInflightBytes: cfg.SMTPMaxInflightBytes, BytesPerClient: cfg.SMTPBytesPerClient}
		if cfg.TLSCert != "" {
			cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
			if err != nil {
				return fmt.Errorf("invalid --tls-cert/--tls-key: %w", err)
			}
			smtpCfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		}
		smtpSrv := ingest.NewSMTPServer(s.Commands, smtpCfg)
		if err = smtpSrv.Listen(); err != nil {
			return err
		}
		smtpSrv.Instrument(reg)
		s.SMTP = smtpSrv
		go func() {
			if err := s.SMTP.Serve(); err != nil {
				s.fail(err)
			}
		}()
	}
	if cfg.HTTPAddr == "" {
		return nil
	}
	if s.httpLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
		return fmt.Errorf("HTTP listener: %w", err)
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
	s.http = &http.Server{Handler: counted, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	go func() {
		defer close(s.served)
		if err := s.http.Serve(s.httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.fail(fmt.Errorf("HTTP listener: %w", err))
		}
	}()
	return nil
}

// HTTPAddr is the address the HTTP listener is bound to; empty without one.
func (s *Service) HTTPAddr() string {
	if s.httpLn == nil {
		return ""
	}
	return s.httpLn.Addr().String()
}

// SMTPAddr is the address the SMTP listener is bound to; empty without one.
func (s *Service) SMTPAddr() string {
	if s.SMTP == nil {
		return ""
	}
	return s.SMTP.Addr()
}

// Shutdown stops accepting, lets in-flight requests and events finish, and
// stops NATS, all within ctx's deadline. It is safe on a partly started
// Service, and more than once.
func (s *Service) Shutdown(ctx context.Context) {
	s.stopOnce.Do(func() { close(s.stopping) })
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
	if s.Hooks != nil {
		s.Hooks.Stop() // it reads the views
	}
	if s.Views != nil {
		s.Views.Stop()
		// What a clean stop leaves; the next start compares. Not after a
		// start that failed before its views opened: it may not have
		// checked what it found.
		s.record(ctx)
	}
	if s.Node != nil {
		s.Node.Close(ctx)
	}
	if s.Store != nil {
		s.Store.Close()
	}
	unlockDataDir(s.lock)
	s.lock = nil
}
