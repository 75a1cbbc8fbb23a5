package apitest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"tempmail/backend/backendtest"
	"tempmail/config"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// Shared is one service for the tests of a package that need nothing of it
// but inboxes of their own: it starts when a test first asks for it, and
// Run stops it when the package's tests are done. A test package keeps one
// in a variable of its own and runs its tests through it:
//
//	var shared apitest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(shared.Run(m)) }
//
// A test on a shared service makes its own inboxes and reads only them: it
// must not change what others see (the configuration, readiness, the
// domains), and must not count what the whole service holds. One that does
// starts a service of its own (New); the harness's Metric refuses to read a
// shared service's. The shared service has no limit on one client's
// creations and logins.
type Shared struct {
	mu   sync.Mutex
	ran  map[string]bool // the tests that had a harness on it
	once sync.Once
	svc  *service.Service
	dir  string
	log  func() string
	err  error
}

// Harness is a harness for t on the shared service, started on first use
// with New's configuration.
//
// A test that runs again in the same process (go test -count) gets a
// service of its own instead: tests name their inboxes, and the names its
// first run took are still taken on the shared one.
func (s *Shared) Harness(t *testing.T) *Harness {
	t.Helper()
	s.mu.Lock()
	again := s.ran[t.Name()]
	if s.ran == nil {
		s.ran = map[string]bool{}
	}
	s.ran[t.Name()] = true
	s.mu.Unlock()
	if again {
		return New(t)
	}
	s.once.Do(s.start)
	if s.err != nil {
		t.Fatalf("start the shared service: %v", s.err)
	}
	h := &Harness{T: t, Service: s.svc, URL: servicetest.URL(s.svc), Contract: newContract(t, s.svc.API.Router()), shared: true}
	h.Client = h.ClientVia(http.DefaultTransport, 90*time.Second)
	return h
}

func (s *Shared) start() {
	s.dir, s.err = os.MkdirTemp("", "apitest-")
	if s.err != nil {
		return
	}
	cfg := servicetest.ConfigIn(s.dir)
	configure(&cfg)
	// The package's tests are many clients that all come from 127.0.0.1:
	// one client's shares of creations and logins would be theirs
	// together. Tests of those shares start services of their own.
	cfg.CreateRatePerClient = config.Rate{}
	cfg.LoginRatePerClient = config.Rate{}
	opts := service.Options{Partitions: servicetest.Partitions, Version: "test", PasswordCost: passwordCost}
	opts.Logger, s.log = backendtest.LogTail()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.svc, s.err = service.Start(ctx, cfg, opts)
}

// Run runs the package's tests as Main does, then stops the shared service,
// if one started, and removes its data; it returns m.Run's code. When a
// test failed, the service's log is printed.
func (s *Shared) Run(m *testing.M) int {
	setParallel()
	code := m.Run()
	if s.svc != nil {
		servicetest.Stop(s.svc)
		if code != 0 {
			fmt.Fprintf(os.Stderr, "the shared service's log (its last 64 KiB at most):\n%s", s.log())
		}
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
	return code
}
