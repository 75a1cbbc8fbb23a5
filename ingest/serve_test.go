package ingest

import (
	"context"
	"log/slog"
	"tempmail/command"
	"testing"
	"time"
)

// TestSMTPServeReportsAFailedListener: Serve returns an error when its
// listener fails under it (the service then stops), and nil after Shutdown.
// Neither takes mail, so the server needs no event store.
func TestSMTPServeReportsAFailedListener(t *testing.T) {
	t.Parallel()
	d := &command.Commands{Log: slog.New(slog.DiscardHandler)}
	s := NewSMTPServer(d, SMTPConfig{Addr: "127.0.0.1:0"})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	s.ln.Close()
	if err := <-served; err == nil {
		t.Error("Serve returned nil after its listener failed")
	}

	s = NewSMTPServer(d, SMTPConfig{Addr: "127.0.0.1:0"})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go func() { served <- s.Serve() }()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s.Shutdown(ctx)
	if err := <-served; err != nil {
		t.Errorf("Serve after Shutdown: %v", err)
	}
}
