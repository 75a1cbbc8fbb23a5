package command_test

import (
	"context"
	"sync"
	"testing"

	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/command"
	"tempmail/config"
	"tempmail/mailbox"
	"tempmail/projections"
)

// The commands are tried on a running back end, built as `tempmail serve`
// builds it under its HTTP side (backendtest), through the Commands it
// holds; what they did is read back from its views, at once: a command
// returns once its change is applied.

// start runs a back end whose webhooks may target loopback, with cfg's
// other fields as backendtest's, refined by each of with.
func start(t *testing.T, with ...func(*config.Config)) *backend.Backend {
	t.Helper()
	return startWith(t, backend.Options{}, with...)
}

// startWith is start with options beyond the configuration.
func startWith(t *testing.T, opts backend.Options, with ...func(*config.Config)) *backend.Backend {
	t.Helper()
	cfg := backendtest.Config(t)
	cfg.WebhookAllowPrivate = true
	for _, w := range with {
		w(&cfg)
	}
	return backendtest.StartWith(t, cfg, opts)
}

// domain returns the active domain of svc named name.
func domain(t *testing.T, svc *backend.Backend, name string) projections.Domain {
	t.Helper()
	return backendtest.Domain(t, svc, name)
}

// newInbox makes a family C inbox named local (random if empty) on the
// first domain.
func newInbox(t *testing.T, svc *backend.Backend, local string) *projections.Inbox {
	t.Helper()
	in, err := svc.Commands.CreateInbox(t.Context(), command.Spec{Local: local, Random: 10,
		Domain: domain(t, svc, svc.Config.Domains[0])})
	if err != nil {
		t.Fatalf("create inbox %q: %v", local, err)
	}
	return in
}

// latest returns the newest message of in, with what it says, as the
// views show it now.
func latest(t *testing.T, svc *backend.Backend, in *projections.Inbox) *mailbox.Message {
	t.Helper()
	in, err := svc.Views.Inbox(t.Context(), in.ID) // as it is now
	if err != nil {
		t.Fatal(err)
	}
	s, err := svc.Views.Latest(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := svc.Views.Message(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// logEnd is the sequence of the newest message svc's event log took. It
// only grows (what leaves the log leaves its sequence behind): a command
// that leaves it be recorded nothing.
func logEnd(t *testing.T, svc *backend.Backend) uint64 {
	t.Helper()
	seq, err := svc.Store.LastSeq(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

// race runs f n times at once, each in a goroutine of its own let go
// together, and returns the errors, in no particular order.
func race(n int, f func(ctx context.Context, i int) error) []error {
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = f(context.Background(), i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}
