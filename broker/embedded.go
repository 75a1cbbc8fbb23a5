package broker

// The embedded server: its options, and the waits StartNode makes until
// it serves (its listeners, a cluster's leader, the JetStream API).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

func serverOptions(cfg NodeConfig) (*server.Options, error) {
	opts := &server.Options{
		ServerName: "tempmail",
		DontListen: true, // unless cfg.Listen: the process talks to it in-process
		JetStream:  true,
		StoreDir:   filepath.Join(cfg.DataDir, "nats"),
		NoSigs:     true, // we own SIGINT/SIGTERM and shut down in order
		// Views and events live in file storage; memory is only for ordered
		// consumers' state, so a modest cap keeps the process bounded.
		JetStreamMaxMemory: 256 << 20,
		// The whole filesystem: by default the server takes 75% of what
		// is free at start and refuses writes past it, long before the
		// disk is full; the service keeps room free itself (DiskGuard).
		JetStreamMaxStore: filesystemBytes(cfg.DataDir),
	}
	// --sync always: a cluster node flushes every write (its Raft log
	// too); a single node leaves the flushes of acknowledged writes to its
	// Flusher, and the rest to the server's own two-minute flush.
	if cfg.SyncInterval != 0 {
		opts.SyncInterval = cfg.SyncInterval
	} else if cfg.Cluster.Name != "" {
		opts.SyncAlways = true
	}
	if cfg.Listen != "" {
		host, port, err := splitHostPort(cfg.Listen)
		if err != nil {
			return nil, fmt.Errorf("invalid --nats-listen %q: %v", cfg.Listen, err)
		}
		opts.DontListen = false
		opts.Host, opts.Port = host, port
	}
	c := cfg.Cluster
	if c.Name == "" {
		return opts, nil
	}
	chost, cport, err := splitHostPort(c.Addr)
	if err != nil {
		return nil, fmt.Errorf("invalid --cluster-addr %q: %v", c.Addr, err)
	}
	routes := server.RoutesFromStr(strings.Join(c.Routes, ","))
	if len(routes) != len(c.Routes) {
		return nil, fmt.Errorf("invalid --routes %q: every entry must be a URL such as nats://tempmail-1:6222", strings.Join(c.Routes, ","))
	}
	opts.ServerName = c.ServerName
	opts.Cluster = server.ClusterOpts{Name: c.Name, Host: chost, Port: cport, Advertise: c.Advertise}
	// Every node lists every route, its own included (it recognises and
	// skips itself), so each expects the same cluster size.
	opts.Routes = routes
	return opts, nil
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, errors.New("needs a port from 1 to 65535")
	}
	if host == "" {
		host = "0.0.0.0"
	}
	return host, port, nil
}

// filesystemBytes is the size of the filesystem that holds dir (0, the
// server's own default, when it cannot be read). A filesystem that says it
// has no room at all (some FUSE filesystems answer statfs with zeros) is
// taken as unbounded: the server's default would be 75% of nothing, and
// refuse every stream.
func filesystemBytes(dir string) int64 {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0
	}
	if st.Blocks == 0 {
		return 1 << 50
	}
	return int64(st.Blocks) * st.Bsize
}

// awaitListeners waits until the server listens on every port it was
// given, for at most 30s, but no longer than it takes the server to say
// it cannot (a port in use: it logs the failure, and would otherwise be
// waited for in vain).
func awaitListeners(ns *server.Server, logger *serverLogger) error {
	for deadline := time.Now().Add(30 * time.Second); ; {
		if ns.ReadyForConnections(100 * time.Millisecond) {
			return nil
		}
		if f := logger.fatalError(); f != "" {
			return fmt.Errorf("embedded NATS did not start: %s", f)
		}
		if time.Now().After(deadline) {
			return errors.New("embedded NATS did not become ready within 30s")
		}
	}
}

// waitForMetaLeader blocks until the cluster has elected the leader that
// places streams: before that, nothing can be created or written. At a
// cluster's first start that needs every node listed in the routes.
func waitForMetaLeader(ctx context.Context, ns *server.Server, log *slog.Logger) error {
	start, said := time.Now(), time.Now()
	for {
		hs := ns.Healthz(&server.HealthzOptions{JSMetaOnly: true})
		if hs.Status == "ok" {
			log.Info("JetStream cluster ready", "server", ns.Name(), "routes", ns.NumRoutes(), "waited", time.Since(start).Round(time.Millisecond))
			return nil
		}
		if time.Since(said) >= 10*time.Second {
			said = time.Now()
			log.Warn("waiting for the JetStream cluster to elect a leader; every node in --routes must be up",
				"server", ns.Name(), "routes_connected", ns.NumRoutes(), "status", hs.Error)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the JetStream cluster has no leader (%d routes connected): %w", ns.NumRoutes(), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitForAPI blocks until JetStream answers requests. Just after a cluster
// has elected its leader, requests can go unanswered for a while (measured:
// every request of the first ten seconds, when each node began at once);
// short probes find the moment it answers.
func waitForAPI(ctx context.Context, js jetstream.JetStream) error {
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := js.AccountInfo(pctx)
		cancel()
		if err == nil {
			return nil
		}
		// A cluster without a leader answers at once that it has none:
		// pause rather than spin through the election.
		select {
		case <-ctx.Done():
			return fmt.Errorf("JetStream does not answer: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
