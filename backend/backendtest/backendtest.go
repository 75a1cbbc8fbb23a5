package backendtest

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"tempmail/backend"
	"tempmail/config"
	"tempmail/events"
)

// Partitions is the event stream's partition count in tests.
const Partitions = 2

// Config is the configuration tests of the back end start from: the
// defaults, data in a fresh temporary directory, SMTP on a loopback port
// the system picks, no HTTP listener (the back end has none), and no sender
// checks (they would ask the network's DNS; tests of them bring their own
// server through backend.Options.Mail).
func Config(t testing.TB) config.Config { return ConfigIn(t.TempDir()) }

// ConfigIn is Config with its data in dir.
func ConfigIn(dir string) config.Config {
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.HTTPAddr = ""
	cfg.SMTPAddr = "127.0.0.1:0"
	cfg.AuthChecks = false
	return cfg
}

// Start runs the back end with cfg until the test ends; a failure to start
// fails the test.
func Start(t testing.TB, cfg config.Config) *backend.Backend {
	t.Helper()
	return StartWith(t, cfg, backend.Options{})
}

// StartWith is Start with options beyond the configuration.
func StartWith(t testing.TB, cfg config.Config, opts backend.Options) *backend.Backend {
	t.Helper()
	b, err := Try(t, cfg, opts)
	if err != nil {
		t.Fatalf("start the back end: %v", err)
	}
	return b
}

// Try starts the back end as StartWith does, and returns why it could not
// rather than failing the test. A back end that started is stopped when the
// test ends.
func Try(t testing.TB, cfg config.Config, opts backend.Options) (*backend.Backend, error) {
	t.Helper()
	if opts.Partitions == 0 {
		opts.Partitions = Partitions
	}
	if opts.Version == "" {
		opts.Version = "test"
	}
	if opts.Logger == nil {
		opts.Logger = LogOnFailure(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := backend.Start(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { Stop(b) })
	return b, nil
}

// Stop shuts b down as `tempmail serve` does on SIGTERM; stopping it again
// (as the test's cleanup does) is harmless.
func Stop(b *backend.Backend) {
	ctx, cancel := context.WithTimeout(context.Background(), backend.ShutdownGrace)
	defer cancel()
	b.Shutdown(ctx)
}

// Applied waits until the views of b have applied the event ack names:
// after it, every read shows what the event did.
func Applied(t testing.TB, b *backend.Backend, ack events.Ack) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.Views.WaitApplied(ctx, ack); err != nil {
		t.Fatalf("wait for event %d to be applied: %v", ack.Seq, err)
	}
}

// Long marks a long scenario (a cluster, power cuts, a hundred thousand
// inboxes, a 25 MiB message): `make test` and `make test-e2e` (go test
// -short) skip it, and `make test-long`, which CI runs too, runs it without
// the race detector. The test's name must be in the Makefile's LONG_TESTS,
// which a test of cmd/tempmail checks (it looks for this and
// servicetest.Long).
func Long(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("a long scenario: make test-long runs it")
	}
}

// LogOnFailure is a logger whose lines the test prints only if it fails:
// what the service said is what a flake seen once in CI is diagnosed by. It
// keeps the last maxLog bytes.
func LogOnFailure(t testing.TB) *slog.Logger {
	w := &tailBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the service's log (its last %d bytes at most):\n%s", maxLog, w.String())
		}
	})
	return slog.New(slog.NewTextHandler(w, nil))
}

// maxLog bounds what LogOnFailure keeps of one service's log.
const maxLog = 64 << 10

// tailBuffer keeps the last maxLog bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - maxLog; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// LogTail is a logger that keeps the last 64 KiB of what is written to it,
// and what it kept: for a service shared by a package's tests, whose log no
// one test owns.
func LogTail() (*slog.Logger, func() string) {
	w := &tailBuffer{}
	return slog.New(slog.NewTextHandler(w, nil)), w.String
}
