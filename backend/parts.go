package backend

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tempmail/broker"
	"tempmail/config"
	"tempmail/events"
	"tempmail/projections"
)

// nodeConfig says which NATS to run or reach.
func nodeConfig(cfg config.Config, log *slog.Logger) broker.NodeConfig {
	nc := broker.NodeConfig{DataDir: cfg.DataDir, URL: cfg.NATSURL, Creds: cfg.NATSCreds,
		TLSCA: cfg.NATSTLSCA, TLSCert: cfg.NATSTLSCert, TLSKey: cfg.NATSTLSKey, Listen: cfg.NATSListen,
		SyncInterval: cfg.SyncInterval, Logger: log}
	if cfg.ClusterName != "" {
		name := cfg.ServerName
		if name == "" {
			name, _ = os.Hostname()
		}
		nc.Cluster = broker.ClusterConfig{Name: cfg.ClusterName, ServerName: name, Addr: cfg.ClusterAddr,
			Advertise: cfg.ClusterAdvertise, Routes: cfg.Routes}
	}
	return nc
}

// storeConfig keeps message keys in the data directory of a single
// embedded node, which alone reads and erases them; processes that share
// a cluster or an external NATS keep them in NATS.
func storeConfig(cfg config.Config, partitions int, dedupe time.Duration, flusher *broker.Flusher) events.StoreConfig {
	sc := events.StoreConfig{Replicas: cfg.Replicas, Partitions: partitions, DedupeWindow: dedupe, Flusher: flusher}
	if cfg.NATSURL == "" && cfg.ClusterName == "" {
		sc.KeyDir = filepath.Join(cfg.DataDir, "keys")
	}
	return sc
}

// syncMode says, for the start-up line, when what is acknowledged is on
// disk.
func syncMode(cfg config.Config) string {
	switch {
	case cfg.NATSURL != "":
		return "as the external NATS server's sync_interval says"
	case cfg.SyncInterval == 0:
		return "always: every 250 and 201 follows the disk flush of what it acknowledges"
	}
	return "every " + cfg.SyncInterval.String() + ": a power cut or OS crash loses what was acknowledged since the last flush"
}

// rules are what the views make of events, from the configuration: the
// same for serving and for a rebuild.
func rules(cfg config.Config) projections.Rules {
	return projections.Rules{MaxMessages: cfg.MaxMessagesPerInbox}
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

// instrument registers the metrics of the parts opened so far; ingest
// registers its own as its listener opens, and the commands theirs as
// they are made.
func (b *Backend) instrument() {
	b.Views.Instrument(b.Metrics)
	b.Store.Instrument(b.Metrics)
	b.Node.Instrument(b.Metrics)
	b.Hooks.Instrument(b.Metrics)
}
