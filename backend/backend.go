package backend

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"tempmail"
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

// ShutdownGrace bounds a graceful stop: stop taking mail, finish the
// conversations under way, let the views apply what they hold, stop NATS.
const ShutdownGrace = 5 * time.Second

// listenerGrace is the part of a stop's budget the listeners get to finish
// what is in flight; the views and NATS get the rest.
const listenerGrace = 3 * time.Second

// Options are what a back end takes beyond its configuration.
type Options struct {
	Logger  *slog.Logger // nil: nothing is logged
	Version string       // names the build: the outbound webhooks' User-Agent
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
	// Metrics is where the parts register their metrics; nil: a registry
	// of the back end's own (Backend.Metrics either way).
	Metrics *prometheus.Registry
	// Prepare, when set, runs once NATS and the event store are open and
	// before the webhook outbox and the views: what the caller keeps in
	// NATS beside the back end's own (service: the API token every
	// process shares) is made in the start order, and is on disk and in
	// the data directory's record of the store when Start returns.
	Prepare func(ctx context.Context, b *Backend) error
}

// Backend is tempmail's back end, running: everything but HTTP. Its
// exported fields are its parts, set by Start and not changed after.
type Backend struct {
	Config   config.Config
	Node     *broker.Node
	Store    *events.Store
	Views    *projections.Views
	Hooks    *webhooks.Webhooks // outbound webhooks
	Commands *command.Commands
	// Creates is each client's share of inbox creations, which the
	// commands spend on mail to a catch-all domain and the API on its
	// requests: one share per client, over SMTP and HTTP alike.
	Creates *fairshare.Limiter
	SMTP    *ingest.SMTPServer   // nil when Config.SMTPAddr is empty
	Disk    *broker.DiskGuard    // nil with an external NATS, whose disk is not ours, or --min-free-disk 0
	Metrics *prometheus.Registry // what the parts count (Options.Metrics)

	log        *slog.Logger
	version    string
	partitions int
	dedupe     time.Duration
	lock       *os.File

	// fatal receives what ends the back end against its will.
	fatal     chan error
	fatalOnce sync.Once
	stopping  chan struct{} // closed when Shutdown (or Stopping) begins
	stopOnce  sync.Once
	smtpOnce  sync.Once // CloseSMTP's
	downOnce  sync.Once // Shutdown's
}

// Start brings the back end up in dependency order and returns once it
// serves: the views hold every event the log held at start, and the SMTP
// listener (when Config.SMTPAddr names one) takes mail. On failure
// everything started is stopped.
func Start(ctx context.Context, cfg config.Config, opts Options) (_ *Backend, err error) {
	b := newBackend(cfg, opts)
	defer func() {
		if err != nil {
			sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
			defer cancel()
			b.Shutdown(sctx)
		}
	}()
	if err = b.openStore(ctx); err != nil {
		return b, err
	}
	go func() {
		select {
		case <-b.Node.Lost():
			b.fail(fmt.Errorf("the connection to NATS is closed: %w", b.Node.LostErr()))
		case <-b.stopping:
		}
	}()
	if b.Disk != nil {
		go b.watchDisk()
	}
	if opts.Prepare != nil {
		if err = opts.Prepare(ctx, b); err != nil {
			return b, err
		}
	}
	if err = b.openViews(ctx, opts.Webhooks); err != nil {
		return b, err
	}
	if err = b.assemble(ctx, opts.Mail); err != nil {
		return b, err
	}
	if err = b.listen(); err != nil {
		return b, err
	}
	// The definitions of every stream and consumer opened or changed on
	// the way, on disk before the record names the streams.
	if err = b.Node.Flusher().FlushAll(); err != nil {
		return b, fmt.Errorf("flush the store's definitions: %w", err)
	}
	b.record(ctx)
	return b, nil
}

func newBackend(cfg config.Config, opts Options) *Backend {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "unknown"
	}
	reg := opts.Metrics
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	return &Backend{Config: cfg, Metrics: reg, log: log, version: version, partitions: opts.Partitions, dedupe: opts.DedupeWindow,
		fatal: make(chan error, 1), stopping: make(chan struct{})}
}

// exclusive says this process alone applies events: a single embedded
// node, which may then reset its consumers at start and rebuild outdated
// views by itself; in a cluster or on an external NATS others may be at it.
func (b *Backend) exclusive() bool { return b.Config.NATSURL == "" && b.Config.ClusterName == "" }

// openStore locks the data directory (when it holds the store), starts or
// reaches NATS and opens the event store: what both serving and a rebuild
// need.
func (b *Backend) openStore(ctx context.Context) (err error) {
	cfg := b.Config
	if cfg.NATSURL == "" {
		if b.lock, err = lockDataDir(cfg.DataDir); err != nil {
			return err
		}
	}
	if b.Node, err = broker.StartNode(ctx, nodeConfig(cfg, b.log)); err != nil {
		return err
	}
	if cfg.NATSURL == "" && cfg.MinFreeDisk > 0 {
		b.Disk = broker.NewDiskGuard(cfg.DataDir, cfg.MinFreeDisk)
	}
	var rec *storeRecord
	if b.holdsStore() {
		// Before anything is made: a stream made now over one that is
		// missing would hide the loss.
		if rec, err = b.checkRecord(ctx); err != nil {
			return err
		}
	}
	if err = broker.Settle(ctx, b.log, "open the event stream", func(ctx context.Context) (err error) {
		b.Store, err = events.OpenStore(ctx, b.Node.JS, storeConfig(cfg, b.partitions, b.dedupe, b.Node.Flusher()))
		return err
	}); err != nil {
		return err
	}
	return b.reportLoss(ctx, rec)
}

// openViews opens the webhook outbox and the views, and starts the
// projection workers; it returns once the views hold every event the log
// held when it was called.
func (b *Backend) openViews(ctx context.Context, refine func(*webhooks.Options)) (err error) {
	cfg := b.Config
	hookOpts := webhooks.Options{Replicas: cfg.Replicas, Logger: b.log, RetrySchedule: cfg.WebhookRetrySchedule,
		AllowPrivate: cfg.WebhookAllowPrivate, Exclusive: b.exclusive(), Version: b.version, Flusher: b.Node.Flusher()}
	if refine != nil {
		refine(&hookOpts)
	}
	if err = broker.Settle(ctx, b.log, "open the webhook outbox", func(ctx context.Context) (err error) {
		b.Hooks, err = webhooks.Open(ctx, b.Node.JS, hookOpts)
		return err
	}); err != nil {
		return err
	}
	// The views have a connection of their own, so that their writes do
	// not queue behind the API's and ingest's publishes.
	viewsJS, err := b.Node.Lane()
	if err != nil {
		return err
	}
	viewOpts := projections.Options{Logger: b.log, Replicas: cfg.Replicas, Exclusive: b.exclusive(), Outbox: b.Hooks,
		Rules: rules(cfg)}
	err = b.openCurrentViews(ctx, viewsJS, viewOpts)
	if rebuildable(err) && b.exclusive() {
		// Views of an earlier version, or views a power cut took from:
		// this process alone holds the data directory, so it builds them
		// anew from the log, once.
		b.log.Warn("rebuilding the views from the log before serving", "why", err)
		var res projections.RebuildResult
		if res, err = projections.Rebuild(ctx, viewsJS, b.Store, viewOpts); err == nil {
			b.log.Info("views rebuilt", "generation", res.Generation, "events", res.Events, "took", res.Took.Round(time.Millisecond))
			err = b.openCurrentViews(ctx, viewsJS, viewOpts)
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
	if err = broker.Settle(ctx, b.log, "start the projection workers", b.Views.Start); err != nil {
		return err
	}
	return b.Views.CaughtUp(ctx)
}

// assemble makes the commands (mail's delivery among them), starts the
// outbound webhooks, and records the configured domains.
func (b *Backend) assemble(ctx context.Context, refine func(*command.Mail)) error {
	cfg := b.Config
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
	b.instrument()
	b.Hooks.Start(b.Views.Reader)
	// One share of creations per client, whether it makes inboxes over
	// HTTP or by mail to a catch-all domain.
	b.Creates = fairshare.New(cfg.CreateRatePerClient)
	b.Commands = &command.Commands{Store: b.Store, Views: b.Views.Reader, Hooks: b.Hooks, Disk: b.Disk, Faults: command.NewFaultCache(b.Views.Reader),
		Names: tempmail.NewNames(cfg.ReservedNames), Log: b.log, Metrics: command.NewMetrics(b.Metrics), Turns: command.NewTurns(),
		Mail: command.Mail{MaxMessageBytes: cfg.MaxMessageBytes, Hostname: hostname, Retention: cfg.MessageRetention,
			PlusAddressing: cfg.PlusAddressing, CatchAll: cfg.CatchAllDomains, Creates: b.Creates, Auth: auth}}
	if refine != nil {
		refine(&b.Commands.Mail)
	}
	if err := b.Commands.SyncDomains(ctx, cfg.Domains); err != nil {
		return err
	}
	if q := cfg.AnonymousQuota; q != nil {
		err := b.Commands.SetAnonymousQuota(ctx, events.Quota{Inboxes: q.Inboxes, MessagesPerDay: q.MessagesPerDay,
			StorageBytes: q.StorageBytes, Webhooks: q.Webhooks})
		if err != nil {
			return fmt.Errorf("record --anonymous-quota: %w", err)
		}
	}
	return nil
}

// listen opens the SMTP listener when the configuration names one, and
// serves on it.
func (b *Backend) listen() error {
	cfg := b.Config
	if cfg.SMTPAddr == "" {
		return nil
	}
	smtpCfg := ingest.SMTPConfig{Addr: cfg.SMTPAddr, MaxConns: cfg.SMTPMaxConns, MaxConnsPerIP: cfg.SMTPMaxConnsPerIP,
		RatePerIP: cfg.SMTPRatePerIP, MaxInflightBytes: cfg.SMTPMaxInflightBytes, BytesPerClient: cfg.SMTPBytesPerClient}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return fmt.Errorf("invalid --tls-cert/--tls-key: %w", err)
		}
		smtpCfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	smtpSrv := ingest.NewSMTPServer(b.Commands, smtpCfg)
	if err := smtpSrv.Listen(); err != nil {
		return err
	}
	smtpSrv.Instrument(b.Metrics)
	b.SMTP = smtpSrv
	go func() {
		if err := b.SMTP.Serve(); err != nil {
			b.fail(err)
		}
	}()
	return nil
}

// SMTPAddr is the address the SMTP listener is bound to; empty without one.
func (b *Backend) SMTPAddr() string {
	if b == nil || b.SMTP == nil {
		return ""
	}
	return b.SMTP.Addr()
}

// SyncMode says, for a start-up line, when what is acknowledged is on
// disk.
func (b *Backend) SyncMode() string { return syncMode(b.Config) }

// Fatal receives at most one error: why the back end can no longer serve
// (the NATS connection closed for good, the SMTP listener stopped
// serving). The caller must then Shutdown; a process should exit non-zero,
// so that its supervisor starts it again.
func (b *Backend) Fatal() <-chan error { return b.fatal }

func (b *Backend) fail(err error) {
	select {
	case <-b.stopping:
		return // a listener or connection closing in a shutdown is expected
	default:
	}
	b.fatalOnce.Do(func() { b.fatal <- err })
}

// Stopping marks the back end as shutting down: what fails from now on (a
// listener closing, the connection to NATS) is expected, and not Fatal.
// Shutdown begins with it; a caller that stops parts of its own first
// says it before them.
func (b *Backend) Stopping() { b.stopOnce.Do(func() { close(b.stopping) }) }

// watchDisk says in the log when the disk gets too full for new mail and
// inboxes, and when room returns (the refusals themselves look at the disk
// each time).
func (b *Backend) watchDisk() {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	was := false
	for {
		select {
		case <-b.stopping:
			return
		case <-t.C:
		}
		low, free := b.Disk.Low()
		switch {
		case low && !was:
			b.log.Warn("disk nearly full: new mail and inboxes are refused until room is made; deletions go on",
				"free_mib", free>>20, "min_free_disk_mib", b.Disk.Min()>>20, "data_dir", b.Config.DataDir)
		case !low && was:
			b.log.Info("disk has room again: new mail and inboxes are taken", "free_mib", free>>20)
		}
		was = low
	}
}

// CloseSMTP stops the SMTP listener taking connections and lets the
// conversations under way finish within ctx. Shutdown begins with it; a
// caller with listeners of its own runs it beside theirs, so that all stop
// accepting at once, and then calls Shutdown. It happens once.
func (b *Backend) CloseSMTP(ctx context.Context) {
	b.smtpOnce.Do(func() {
		if b.SMTP != nil {
			b.SMTP.Shutdown(ctx)
		}
	})
}

// Shutdown stops taking mail, lets the conversations and events under way
// finish, and stops NATS, all within ctx's deadline. It is safe on a
// partly started Backend; a second call waits for the first and does
// nothing more.
func (b *Backend) Shutdown(ctx context.Context) { b.downOnce.Do(func() { b.shutdown(ctx) }) }

func (b *Backend) shutdown(ctx context.Context) {
	b.Stopping()
	// The listener gets most of the budget, the views and NATS the rest.
	lctx, cancel := context.WithTimeout(ctx, listenerGrace)
	b.CloseSMTP(lctx)
	cancel()
	if b.Hooks != nil {
		b.Hooks.Stop() // it reads the views
	}
	if b.Views != nil {
		b.Views.Stop()
		// What a clean stop leaves; the next start compares. Not after a
		// start that failed before its views opened: it may not have
		// checked what it found.
		b.record(ctx)
	}
	if b.Node != nil {
		b.Node.Close(ctx)
	}
	if b.Store != nil {
		b.Store.Close()
	}
	unlockDataDir(b.lock)
	b.lock = nil
}
