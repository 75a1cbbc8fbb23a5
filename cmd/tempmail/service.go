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
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tempmail"
	"tempmail/command"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"tempmail/api"
	"tempmail/config"
	"tempmail/events"
	"tempmail/ingest"
	"tempmail/mailauth"
	"tempmail/projections"
	"tempmail/webhooks"
)

// Service is a running tempmail: NATS (embedded or external), the event
// store, the views and their workers, and the listeners. Tests start it in
// process exactly as `tempmail serve` does.
type Service struct {
	Config config.Config
	Node   *events.Node
	Store  *events.Store
	Views  *projections.Views
	Hooks  *webhooks.Webhooks
	API    *api.Server
	SMTP   *ingest.SMTPServer

	log    *slog.Logger
	lock   *os.File
	http   *http.Server
	httpLn net.Listener
	served chan struct{}
	// requests counts HTTP requests but probes and scrapes: with the
	// events applied, what says the service is busy (reclaimWhenIdle).
	requests atomic.Uint64

	deliverer *ingest.Deliverer
	disk      *events.DiskGuard // nil with an external NATS, whose disk is not ours

	// fatal receives what ends the service against its will: the NATS
	// connection closed for good, a listener that stopped serving. The
	// process then stops and exits non-zero, so that its supervisor starts
	// it again, rather than live on answering 503.
	fatal     chan error
	fatalOnce sync.Once
	stopping  chan struct{} // closed when Shutdown begins
	stopOnce  sync.Once
}

// Fatal receives at most one error: why the service can no longer serve.
// The caller must then Shutdown.
func (s *Service) Fatal() <-chan error { return s.fatal }

func (s *Service) fail(err error) {
	select {
	case <-s.stopping:
		return // a listener or connection closing in a shutdown is expected
	default:
	}
	s.fatalOnce.Do(func() {
		s.log.Error("the service cannot go on; stopping", "err", err)
		s.fatal <- err
	})
}

// probe names what keeps the service from serving now, for /readyz.
func (s *Service) probe(ctx context.Context) []string {
	var failing []string
	if !s.Node.Connected() {
		failing = append(failing, "nats connection")
	} else {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if err := s.Store.Ping(pctx); err != nil {
			failing = append(failing, "event store")
		}
		cancel()
	}
	failing = append(failing, s.Views.Failing()...)
	if low, free := s.disk.Low(); low {
		failing = append(failing, fmt.Sprintf("disk: %d MiB free, less than --min-free-disk %d MiB: new mail and inboxes are refused until room is made", free>>20, s.disk.Min()>>20))
	}
	select {
	case <-s.SMTP.Stopped():
		failing = append(failing, "smtp listener")
	default:
	}
	return failing
}

// Start brings the service up in dependency order and returns once it is
// ready (healthz answers 200). On failure everything started is stopped.
func Start(ctx context.Context, cfg config.Config, log *slog.Logger) (_ *Service, err error) {
	s := &Service{Config: cfg, log: log, served: make(chan struct{}), fatal: make(chan error, 1), stopping: make(chan struct{})}
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
	if s.Node, err = events.StartNode(ctx, nodeConfig(cfg, log)); err != nil {
		return s, err
	}
	if cfg.NATSURL == "" && cfg.MinFreeDisk > 0 {
		s.disk = events.NewDiskGuard(cfg.DataDir, cfg.MinFreeDisk)
		go s.watchDisk()
	}
	go func() {
		select {
		case <-s.Node.Lost():
			s.fail(fmt.Errorf("the connection to NATS is closed: %w", s.Node.LostErr()))
		case <-s.stopping:
		}
	}()
	if err = settle(ctx, log, "open the event stream", func(ctx context.Context) (err error) {
		s.Store, err = events.OpenStore(ctx, s.Node.JS, storeConfig(cfg))
		return err
	}); err != nil {
		return s, err
	}
	if cfg.APIToken == "" {
		// One candidate for all attempts: an attempt whose store was done
		// but whose answer was lost is recognised by the next one.
		share := &tokenShare{fresh: rand.Text()}
		if err = settle(ctx, log, "share the API token", func(ctx context.Context) (err error) {
			s.Config.APIToken, err = share.token(ctx, s.Node.JS, cfg, log)
			return err
		}); err != nil {
			return s, err
		}
	}
	// A single embedded node is the only process applying events, so it
	// may reset its consumers at start; in a cluster others may be at it.
	exclusive := cfg.NATSURL == "" && cfg.ClusterName == ""
	if err = settle(ctx, log, "open the webhook outbox", func(ctx context.Context) (err error) {
		s.Hooks, err = webhooks.Open(ctx, s.Node.JS, webhooks.Options{Replicas: cfg.Replicas, Logger: log,
			RetrySchedule: cfg.WebhookRetrySchedule, AllowPrivate: cfg.WebhookAllowPrivate, Exclusive: exclusive,
			Version: buildVersion()})
		return err
	}); err != nil {
		return s, err
	}
	viewsJS, err := s.Node.Lane()
	if err != nil {
		return s, err
	}
	viewOpts := projections.Options{Logger: log, Replicas: cfg.Replicas, Exclusive: exclusive, Outbox: s.Hooks,
		Rules: rules(cfg)}
	if err = settle(ctx, log, "open the views", func(ctx context.Context) (err error) {
		s.Views, err = projections.Open(ctx, viewsJS, s.Store, viewOpts)
		return err
	}); errors.Is(err, projections.ErrOutdated) && exclusive {
		// Views of an earlier version: this process alone holds the data
		// directory, so it builds them anew from the log, once.
		log.Warn("the views were built by an earlier tempmail; rebuilding them from the log before serving")
		var res projections.RebuildResult
		if res, err = projections.Rebuild(ctx, viewsJS, s.Store, viewOpts); err == nil {
			log.Info("views rebuilt", "generation", res.Generation, "events", res.Events, "took", res.Took.Round(time.Millisecond))
			s.Views, err = projections.Open(ctx, viewsJS, s.Store, viewOpts)
		}
	}
	if err != nil {
		return s, err
	}
	if err = settle(ctx, log, "start the projection workers", s.Views.Start); err != nil {
		return s, err
	}
	if err = s.Views.CaughtUp(ctx); err != nil {
		return s, err
	}
	hostname := cfg.Hostname
	if hostname == "" {
		hostname = machineName()
	}
	var auth *mailauth.Verifier
	if cfg.AuthChecks {
		dns, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: cfg.DNSResolver})
		if err != nil {
			return s, fmt.Errorf("invalid --dns-resolver: %w", err)
		}
		auth = &mailauth.Verifier{DNS: dns}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo())
	s.Views.Instrument(reg)
	s.Store.Instrument(reg)
	s.Node.Instrument(reg)
	s.Hooks.Instrument(reg)
	s.Hooks.Start(s.Views.Reader)
	s.deliverer = &ingest.Deliverer{Store: s.Store, Views: s.Views.Reader, Log: log,
		MaxMessageBytes: cfg.MaxMessageBytes, Hostname: hostname, Metrics: ingest.NewMetrics(reg),
		Retention: cfg.MessageRetention, Auth: auth, PlusAddressing: cfg.PlusAddressing, Disk: s.disk}
	cmds := &command.Commands{Store: s.Store, Views: s.Views.Reader, Hooks: s.Hooks, Disk: s.disk,
		Names: tempmail.NewNames(cfg.ReservedNames), Log: log}
	s.API = api.New(api.Deps{Config: s.Config, Store: s.Store, Views: s.Views.Reader, Ingest: s.deliverer,
		Hooks: s.Hooks, Log: log, Metrics: reg, Probe: s.probe, Commands: cmds, Version: buildVersion()})
	if err = cmds.SyncDomains(ctx, cfg.Domains); err != nil {
		return s, err
	}

	smtpCfg := ingest.SMTPConfig{Addr: cfg.SMTPAddr, MaxConns: cfg.SMTPMaxConns, MaxConnsPerIP: cfg.SMTPMaxConnsPerIP,
		RatePerIP: cfg.SMTPRatePerIP, MaxInflightBytes: cfg.SMTPMaxInflightBytes}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return s, fmt.Errorf("invalid --tls-cert/--tls-key: %w", err)
		}
		smtpCfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	smtpSrv := ingest.NewSMTPServer(s.deliverer, smtpCfg)
	if err = smtpSrv.Listen(); err != nil {
		return s, err
	}
	smtpSrv.Instrument(reg)
	s.SMTP = smtpSrv
	go func() {
		if err := s.SMTP.Serve(); err != nil {
			s.fail(err)
		}
	}()

	if s.httpLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
		return s, fmt.Errorf("HTTP listener: %w", err)
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
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		defer close(s.served)
		if err := s.http.Serve(s.httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.fail(fmt.Errorf("HTTP listener: %w", err))
		}
	}()
	go s.reclaimWhenIdle()
	s.API.SetReady(true)
	log.Info("tempmail ready", "http", s.httpLn.Addr().String(), "smtp", s.SMTP.Addr(), "version", buildVersion(),
		"domains", strings.Join(cfg.Domains, ","), "data_dir", cfg.DataDir, "views_generation", s.Views.Generation(),
		"log_format", cfg.LogFormat, "access_log", cfg.AccessLog, "cors_origins", strings.Join(cfg.CORSOrigins, ","))
	return s, nil
}

// idleAfter is how long the service must have applied no event and
// answered no request before it is at rest (reclaimWhenIdle);
// reclaimEvery is how often it hands memory back while it stays so;
// restGCPercent is the garbage collector's GOGC meanwhile.
const (
	idleAfter     = 30 * time.Second
	reclaimEvery  = time.Minute
	restGCPercent = 25
)

// reclaimWhenIdle hands memory back to the system once the service has
// been quiet for idleAfter, and every reclaimEvery while it stays so.
// Under load the embedded NATS server and the garbage collector keep what
// the load needed (caches of the blocks just written, pools of buffers, a
// heap goal sized for the rate), and without new work nothing would make
// them let go: a service at rest would go on holding what its busiest
// minute took. The read caches go too, and they refill as reads come.
// Two collections empty the pools; the second returns the freed pages. At
// rest the server still does periodic work on its blocks, which the
// collector then keeps close to what is live (restGCPercent); the usual
// pace returns with the first event applied or request answered.
func (s *Service) reclaimWhenIdle() {
	t := time.NewTicker(idleAfter / 2)
	defer t.Stop()
	// Work is events applied (mail, commands, whatever other processes
	// of a cluster take in) and HTTP requests (a process whose partitions
	// are pinned elsewhere still serves reads).
	work := func() uint64 { return s.Views.Applied() + s.requests.Load() }
	last, quiet := work(), 0
	var reclaimed time.Time    // zero: not since the last work
	atRest, busyGC := false, 0 // busyGC: the GC percent before rest
	defer func() {
		if atRest {
			debug.SetGCPercent(busyGC)
		}
	}()
	for {
		select {
		case <-s.stopping:
			return
		case <-t.C:
		}
		if n := work(); n != last {
			last, quiet, reclaimed = n, 0, time.Time{}
			if atRest {
				debug.SetGCPercent(busyGC)
				atRest = false
			}
			continue
		}
		if quiet++; quiet >= 2 && time.Since(reclaimed) >= reclaimEvery {
			if !atRest {
				busyGC, atRest = debug.SetGCPercent(restGCPercent), true
			}
			s.Views.DropCache()
			s.Store.DropCache()
			runtime.GC()
			debug.FreeOSMemory()
			reclaimed = time.Now()
		}
	}
}

// watchDisk says in the log when the disk gets too full for new mail and
// inboxes, and when room returns (the refusals themselves look at the disk
// each time).
func (s *Service) watchDisk() {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	was := false
	for {
		select {
		case <-s.stopping:
			return
		case <-t.C:
		}
		low, free := s.disk.Low()
		switch {
		case low && !was:
			s.log.Warn("disk nearly full: new mail and inboxes are refused until room is made; deletions go on",
				"free_mib", free>>20, "min_free_disk_mib", s.disk.Min()>>20, "data_dir", s.Config.DataDir)
		case !low && was:
			s.log.Info("disk has room again: new mail and inboxes are taken", "free_mib", free>>20)
		}
		was = low
	}
}

// HTTPAddr is the address the HTTP listener is bound to.
func (s *Service) HTTPAddr() string { return s.httpLn.Addr().String() }

// Shutdown stops accepting, lets in-flight requests and events finish, and
// stops NATS, all within ctx's deadline. It is safe on a partly started
// Service.
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
	}
	if s.Node != nil {
		s.Node.Close(ctx)
	}
	if s.Store != nil {
		s.Store.Close()
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
		log.Warn("rebuild against an external NATS: restart every tempmail process afterwards, so that they serve the new views")
	}
	if cfg.ClusterName != "" {
		log.Warn("rebuild in a cluster: restart every other node afterwards, so that they serve the new views")
	}
	node, err := events.StartNode(ctx, nodeConfig(cfg, log))
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		node.Close(sctx)
	}()
	store, err := events.OpenStore(ctx, node.JS, storeConfig(cfg))
	if err != nil {
		return err
	}
	defer store.Close()
	res, err := projections.Rebuild(ctx, node.JS, store, projections.Options{Logger: log, Replicas: cfg.Replicas, Rules: rules(cfg)})
	if err != nil {
		return err
	}
	rate := float64(res.Events) / max(res.Took.Seconds(), 1e-9)
	fmt.Fprintf(out, "rebuilt views generation %d: %d events, %d entries in %s (%.0f events/s)\n",
		res.Generation, res.Events, res.Keys, res.Took.Round(time.Millisecond), rate)
	return nil
}

// rules are what the views make of events, from the configuration: the
// same for serving and for a rebuild.
func rules(cfg config.Config) projections.Rules {
	return projections.Rules{MaxMessages: cfg.MaxMessagesPerInbox}
}

// settleAttempt bounds one try of a start-up step. Every step is quick
// when JetStream answers; a lost answer is retried soon rather than awaited.
const settleAttempt = 3 * time.Second

// settle runs one idempotent start-up step (creating streams, buckets,
// consumers), again while JetStream cannot answer yet: in a cluster that
// has just formed, leaders are still being elected, and when several nodes
// create the same stream at once the server leaves all but one request
// unanswered.
func settle(ctx context.Context, log *slog.Logger, step string, fn func(context.Context) error) error {
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, settleAttempt)
		err := fn(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !transient(err) {
			return err
		}
		log.Warn("JetStream not ready; trying again", "step", step, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(min(attempt, 5)) * 200 * time.Millisecond):
		}
	}
}

// transient tells errors worth another try at start-up: timeouts and
// JetStream's "temporarily unavailable" while leaders are elected.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) ||
		(errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeJetStreamNotEnabled ||
			apiErr.Code == 503 || apiErr.Code == 408 ||
			apiErr.ErrorCode == 10008 || // "JetStream system temporarily unavailable"
			apiErr.ErrorCode == 10005)) // "no suitable peers for placement": a peer not yet back
}

// storeConfig keeps message keys in the data directory of a single
// embedded node, which alone reads and erases them; processes that share
// a cluster or an external NATS keep them in NATS.
func storeConfig(cfg config.Config) events.StoreConfig {
	sc := events.StoreConfig{Replicas: cfg.Replicas}
	if cfg.NATSURL == "" && cfg.ClusterName == "" {
		sc.KeyDir = filepath.Join(cfg.DataDir, "keys")
	}
	return sc
}

// machineName is the machine's host name, lower-case, for --hostname's
// default; "localhost" when it has none or one that is no host name, as
// it goes into headers (the authserv-id of Authentication-Results).
func machineName() string {
	name, _ := os.Hostname()
	name = strings.ToLower(name)
	valid := name != "" && len(name) <= 253
	for _, r := range name {
		valid = valid && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.')
	}
	if !valid {
		return "localhost"
	}
	return name
}

// nodeConfig says which NATS to run or reach.
func nodeConfig(cfg config.Config, log *slog.Logger) events.NodeConfig {
	nc := events.NodeConfig{DataDir: cfg.DataDir, URL: cfg.NATSURL, Creds: cfg.NATSCreds,
		TLSCA: cfg.NATSTLSCA, TLSCert: cfg.NATSTLSCert, TLSKey: cfg.NATSTLSKey, Listen: cfg.NATSListen, Logger: log}
	if cfg.ClusterName != "" {
		name := cfg.ServerName
		if name == "" {
			name, _ = os.Hostname()
		}
		nc.Cluster = events.ClusterConfig{Name: cfg.ClusterName, ServerName: name, Addr: cfg.ClusterAddr,
			Routes: cfg.Routes}
	}
	return nc
}

// The generated family A token lives in NATS, so that every process of a
// cluster accepts the same one, and in the data directory for the operator
// to read.
const (
	secretsBucket = "SECRETS"
	apiTokenKey   = "api-token"
)

// tokenShare finds the family A API token, generating it on the first
// start of the first process. fresh is this process's candidate, drawn once
// for all the attempts settle makes: the process whose candidate the
// bucket holds made the token, even when the answer to its store was
// lost, and it alone logs it, once.
type tokenShare struct {
	fresh  string
	logged bool
}

// token returns the shared token, and keeps it in the data directory. A
// token already kept there by an earlier version becomes the shared one.
func (ts *tokenShare) token(ctx context.Context, js jetstream.JetStream, cfg config.Config, log *slog.Logger) (string, error) {
	kv, err := events.OpenKV(ctx, js, jetstream.KeyValueConfig{Bucket: secretsBucket,
		Description: "tempmail: the generated family A API token", History: 1,
		Storage: jetstream.FileStorage, Replicas: cfg.Replicas})
	if err != nil {
		return "", err
	}
	path := filepath.Join(cfg.DataDir, "api-token")
	local := ""
	if b, err := os.ReadFile(path); err == nil {
		local = strings.TrimSpace(string(b))
	}
	candidate := local
	if candidate == "" {
		candidate = ts.fresh
	}
	// The bucket's Get reads from its leader (events.OpenKV), so a token
	// another process stored first is seen by the Get after a failed Create.
	e, err := kv.Get(ctx, apiTokenKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		if _, err = kv.Create(ctx, apiTokenKey, []byte(candidate)); err == nil || errors.Is(err, jetstream.ErrKeyExists) {
			e, err = kv.Get(ctx, apiTokenKey)
		}
	}
	if err != nil {
		return "", fmt.Errorf("read or store the API token: %w", err)
	}
	tok := string(e.Value())
	if tok == ts.fresh && local == "" && !ts.logged {
		log.Info("generated an API token for family A; it is kept in "+path, "api_token", tok)
		ts.logged = true
	}
	if tok != local {
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("keep the API token in %s: %w", path, err)
		}
	}
	return tok, nil
}
