package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NodeConfig says where the NATS server is.
type NodeConfig struct {
	// DataDir holds the embedded server's JetStream store (in DataDir/nats).
	DataDir string
	// URL, when set, connects to an external server (or cluster, comma
	// separated) instead of embedding one; Creds and the TLS files
	// configure that connection.
	URL                    string
	Creds                  string
	TLSCA, TLSCert, TLSKey string
	// Listen, when set, opens the embedded server's client listener
	// (host:port), for other processes and tools such as the nats CLI;
	// empty, the process talks to its server in-process only. A cluster
	// node must have one: nats-server opens its routes only after its
	// client listener (nats-server issue 5174), and other processes
	// connect there.
	Listen string
	// SyncInterval is how often the embedded server puts what it wrote on
	// disk; 0: every write before it is acknowledged. A single node then
	// has its writes flushed by the Flusher, in group commits; a cluster
	// node flushes every write (nats-server's sync_interval: always) and
	// its Raft log, so an acknowledgment means "on disk on a majority".
	SyncInterval time.Duration

	// Cluster, when Name is set, makes the embedded server a node of a
	// JetStream cluster.
	Cluster ClusterConfig
	Logger  *slog.Logger
}

// ClusterConfig joins an embedded server to its peers.
type ClusterConfig struct {
	Name       string   // cluster name, the same on every node
	ServerName string   // unique per node
	Addr       string   // route listener, host:port
	Advertise  string   // what the other nodes dial for it; empty: Addr
	Routes     []string // every node's route URL, this one's included
}

// Node is a connection to NATS JetStream, and the embedded server behind it
// when there is one.
//
// The client library reconnects by itself after a disconnection, but a
// connection the server closes for a protocol error (a subject over the
// server's control line limit, say) is closed for good; Lost then tells
// the process, which cannot serve without it.
type Node struct {
	Conn   *nats.Conn
	JS     jetstream.JetStream
	server *server.Server // nil when external
	// DataDir is the embedded server's data directory; empty when external.
	DataDir string

	// dial opens another connection like Conn (Lane); lanes are those open.
	dial  func() (*nats.Conn, error)
	mu    sync.Mutex
	lanes []*nats.Conn

	closing  atomic.Bool   // Close was called: the connection's end is ours
	closed   chan struct{} // closed when the connection is
	lost     chan struct{} // closed when the connection closed without Close
	lostErr  atomic.Pointer[error]
	lostOnce sync.Once

	flusher *Flusher // a single node's flushes with --sync always; nil otherwise
}

// Flusher is what puts this node's acknowledged writes on disk: nil when
// the server flushes them itself (a cluster node), or when nothing is
// promised (--sync with an interval, an external NATS).
func (n *Node) Flusher() *Flusher { return n.flusher }

// StartNode starts the embedded server (or dials the external one) and
// returns a connection with JetStream ready.
func StartNode(ctx context.Context, cfg NodeConfig) (*Node, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.URL != "" {
		return connect(ctx, cfg, log)
	}
	opts, err := serverOptions(cfg)
	if err != nil {
		return nil, err
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	logger := &serverLogger{log: log.With("component", "nats")}
	ns.SetLoggerV2(logger, false, false, false)
	go ns.Start()
	if err := awaitListeners(ns, logger); err != nil {
		ns.Shutdown()
		return nil, err
	}
	if f := logger.fatalError(); f != "" || !ns.JetStreamEnabled() {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded NATS: JetStream is not enabled: %s", f)
	}
	if cfg.Cluster.Name != "" {
		if err := waitForMetaLeader(ctx, ns, log); err != nil {
			ns.Shutdown()
			return nil, err
		}
	}
	dial := func() (*nats.Conn, error) {
		return nats.Connect("", append(clientOptions(log), nats.InProcessServer(ns))...)
	}
	nc, err := dial()
	if err != nil {
		ns.Shutdown()
		return nil, fmt.Errorf("connect to embedded NATS: %w", err)
	}
	node, err := newNode(nc, ns)
	if err != nil {
		return nil, err
	}
	node.dial = dial
	node.DataDir = cfg.DataDir
	if cfg.Cluster.Name == "" {
		if cfg.SyncInterval == 0 {
			node.flusher = newFlusher(opts.StoreDir)
		}
		return node, nil
	}
	if err := waitForAPI(ctx, node.JS); err != nil {
		node.Close(context.Background())
		return nil, err
	}
	return node, nil
}

// connect dials an external NATS. It fails at once if no server answers
// (the operator hears of a wrong URL at start-up); once connected, it
// redials for as long as the process runs: a server restarting is no reason
// to give up.
func connect(ctx context.Context, cfg NodeConfig, log *slog.Logger) (*Node, error) {
	opts := append(clientOptions(log), nats.ReconnectWait(time.Second), nats.Timeout(5*time.Second))
	if cfg.Creds != "" {
		opts = append(opts, nats.UserCredentials(cfg.Creds))
	}
	if cfg.TLSCA != "" {
		opts = append(opts, nats.RootCAs(cfg.TLSCA))
	}
	if cfg.TLSCert != "" {
		opts = append(opts, nats.ClientCert(cfg.TLSCert, cfg.TLSKey))
	}
	dial := func() (*nats.Conn, error) { return nats.Connect(cfg.URL, opts...) }
	nc, err := dial()
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", cfg.URL, err)
	}
	node, err := newNode(nc, nil)
	if err != nil {
		return nil, err
	}
	node.dial = dial
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := node.JS.AccountInfo(actx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS at %s has no JetStream for this account (it must run with JetStream enabled): %w", cfg.URL, err)
	}
	return node, nil
}

// clientOptions are those of every connection: reconnect forever, and say
// so in the log (the library's own default prints to stderr).
func clientOptions(log *slog.Logger) []nats.Option {
	return []nats.Option{nats.Name("tempmail"), nats.MaxReconnects(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS connection lost; reconnecting", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("NATS connection restored", "server", nc.ConnectedUrlRedacted()) }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			log.Warn("NATS: asynchronous error", "err", err)
		}),
	}
}

func newNode(nc *nats.Conn, ns *server.Server) (*Node, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		if ns != nil {
			ns.Shutdown()
		}
		return nil, err
	}
	n := &Node{Conn: nc, JS: js, server: ns, closed: make(chan struct{}), lost: make(chan struct{})}
	nc.SetClosedHandler(func(c *nats.Conn) {
		close(n.closed)
		if n.closing.Load() {
			return
		}
		err := c.LastError()
		if err == nil {
			err = errors.New("closed by the server")
		}
		n.lostErr.Store(&err)
		n.lostOnce.Do(func() { close(n.lost) })
	})
	if nc.IsClosed() {
		// Closed before the handler was in place.
		return nil, fmt.Errorf("NATS connection closed at once: %v", nc.LastError())
	}
	return n, nil
}

// Server returns the embedded server, or nil when connected to an external one.
func (n *Node) Server() *server.Server { return n.server }

// Close drains the connection (flushing pending publishes and acks) and then
// stops the embedded server, waiting at most until ctx is done.
func (n *Node) Close(ctx context.Context) {
	n.closing.Store(true)
	n.mu.Lock()
	for _, nc := range n.lanes {
		if err := nc.Drain(); err != nil {
			nc.Close()
		}
	}
	n.mu.Unlock()
	if n.Conn.IsClosed() {
		n.shutdownServer()
		return
	}
	if err := n.Conn.Drain(); err != nil {
		n.Conn.Close()
	}
	select {
	case <-n.closed:
	case <-ctx.Done():
		n.Conn.Close()
	}
	n.shutdownServer()
}

func (n *Node) shutdownServer() {
	if n.server != nil {
		n.server.Shutdown()
		n.server.WaitForShutdown()
	}
	n.flusher.close()
}
