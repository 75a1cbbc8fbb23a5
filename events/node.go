package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
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
	// separated) instead of embedding one.
	URL    string
	Logger *slog.Logger
}

// Node is a connection to NATS JetStream, and the embedded server behind it
// when there is one.
type Node struct {
	Conn   *nats.Conn
	JS     jetstream.JetStream
	server *server.Server // nil when external
}

// StartNode starts the embedded server (or dials the external one) and
// returns a connection with JetStream ready.
func StartNode(ctx context.Context, cfg NodeConfig) (*Node, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.URL != "" {
		nc, err := nats.Connect(cfg.URL, nats.Name("tempmail"), nats.MaxReconnects(-1),
			nats.Timeout(5*time.Second))
		if err != nil {
			return nil, fmt.Errorf("connect to NATS at %s: %w", cfg.URL, err)
		}
		return newNode(nc, nil)
	}

	opts := &server.Options{
		ServerName: "tempmail",
		DontListen: true, // single node: the process talks to it in-process only
		JetStream:  true,
		StoreDir:   filepath.Join(cfg.DataDir, "nats"),
		NoSigs:     true, // we own SIGINT/SIGTERM and shut down in order
		// Views and events live in file storage; memory is only for ordered
		// consumers' state, so a modest cap keeps the process bounded.
		JetStreamMaxMemory: 256 << 20,
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	logger := &serverLogger{log: log.With("component", "nats")}
	ns.SetLoggerV2(logger, false, false, false)
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		if f := logger.fatalError(); f != "" {
			return nil, fmt.Errorf("embedded NATS did not start: %s", f)
		}
		return nil, errors.New("embedded NATS did not become ready within 30s")
	}
	if f := logger.fatalError(); f != "" || !ns.JetStreamEnabled() {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded NATS: JetStream is not enabled: %s", f)
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns), nats.Name("tempmail"))
	if err != nil {
		ns.Shutdown()
		return nil, fmt.Errorf("connect to embedded NATS: %w", err)
	}
	return newNode(nc, ns)
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
	return &Node{Conn: nc, JS: js, server: ns}, nil
}

// Server returns the embedded server, or nil when connected to an external one.
func (n *Node) Server() *server.Server { return n.server }

// Close drains the connection (flushing pending publishes and acks) and then
// stops the embedded server, waiting at most until ctx is done.
func (n *Node) Close(ctx context.Context) {
	if n.Conn.IsClosed() {
		n.shutdownServer()
		return
	}
	closed := make(chan struct{})
	n.Conn.SetClosedHandler(func(*nats.Conn) { close(closed) })
	if err := n.Conn.Drain(); err != nil {
		n.Conn.Close()
	}
	select {
	case <-closed:
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
}
