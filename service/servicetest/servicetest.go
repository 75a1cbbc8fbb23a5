package servicetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"tempmail/backend/backendtest"
	"tempmail/broker/natstest"
	"tempmail/config"
	"tempmail/events"
	"tempmail/service"
)

// Partitions is the event stream's partition count in tests.
const Partitions = 2

// Config is the configuration tests start from: the defaults, data in a
// fresh temporary directory, both listeners on loopback ports the system
// picks, and no sender checks (they would ask the network's DNS; tests of
// them bring their own server).
func Config(t testing.TB) config.Config { return ConfigIn(t.TempDir()) }

// ConfigIn is Config with its data in dir.
func ConfigIn(dir string) config.Config {
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.SMTPAddr = "127.0.0.1:0"
	cfg.AuthChecks = false
	return cfg
}

// Start runs the service with cfg until the test ends; a failure to start
// fails the test.
func Start(t testing.TB, cfg config.Config) *service.Service {
	t.Helper()
	return StartWith(t, cfg, service.Options{})
}

// StartWith is Start with options beyond the configuration.
func StartWith(t testing.TB, cfg config.Config, opts service.Options) *service.Service {
	t.Helper()
	svc, err := Try(t, cfg, opts)
	if err != nil {
		t.Fatalf("start the service: %v", err)
	}
	return svc
}

// Try starts the service as StartWith does, and returns why it could not
// rather than failing the test. A service that started is stopped when the
// test ends.
func Try(t testing.TB, cfg config.Config, opts service.Options) (*service.Service, error) {
	t.Helper()
	if opts.Partitions == 0 {
		opts.Partitions = Partitions
	}
	if opts.Version == "" {
		opts.Version = "test"
	}
	if opts.Logger == nil {
		opts.Logger = backendtest.LogOnFailure(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, err := service.Start(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { Stop(svc) })
	return svc, nil
}

// Stop shuts svc down as `tempmail serve` does on SIGTERM; stopping it
// again (as the test's cleanup does) is harmless.
func Stop(svc *service.Service) {
	ctx, cancel := context.WithTimeout(context.Background(), service.ShutdownGrace)
	defer cancel()
	svc.Shutdown(ctx)
}

// URL is the service's HTTP base URL.
func URL(svc *service.Service) string { return "http://" + svc.HTTPAddr() }

// Applied waits until the views of svc have applied the event ack names:
// after it, every family reads what the event did.
func Applied(t testing.TB, svc *service.Service, ack events.Ack) {
	t.Helper()
	backendtest.Applied(t, svc.Backend, ack)
}

// ExternalNATS runs a JetStream server on loopback, as an operator's NATS
// looks to --nats-url, and a proxy in front of it that can cut connections,
// drop answers or send protocol errors (natstest.Proxy). Give the service
// the proxy's URL. Both stop when the test ends.
func ExternalNATS(t testing.TB) *natstest.Proxy {
	t.Helper()
	_, url := natstest.StartServer(t, t.TempDir())
	return natstest.StartProxy(t, strings.TrimPrefix(url, "nats://"))
}

// SecureNATS runs a standalone nats-server with TLS and credentials, as an
// operator would; it stops when the test ends.
func SecureNATS(t testing.TB) *natstest.SecureServer {
	t.Helper()
	return natstest.StartSecureServer(t, t.TempDir())
}

// Long marks a long scenario (a cluster, power cuts, a hundred thousand
// inboxes, a 25 MiB message): `make test` and `make test-e2e` (go test
// -short) skip it, and `make test-long`, which CI runs too, runs it without
// the race detector. The test's name must be in the Makefile's LONG_TESTS,
// which a test of cmd/tempmail checks. It is backendtest.Long.
func Long(t testing.TB) {
	t.Helper()
	backendtest.Long(t)
}
