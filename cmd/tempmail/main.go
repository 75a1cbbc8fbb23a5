package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"tempmail/config"
	"tempmail/logs"
)

// shutdownGrace bounds a graceful stop: stop accepting, finish in-flight
// work, stop NATS.
const shutdownGrace = 5 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

const usage = `usage: tempmail <command> [flags]

commands:
  serve        run the service (HTTP, SMTP, embedded NATS)
  rebuild      replay the event log into fresh views (the server must be stopped)
  healthcheck  exit 0 if the service at --http-addr is ready, else 1
  version      print the version

Run 'tempmail <command> -h' for the flags of a command.
`

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "tempmail", buildVersion())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "inbox":
		return runInbox(rest, getenv, stdout, stderr)
	case "wait":
		return runWait(rest, getenv, stdout, stderr)
	case "mcp":
		return runMCP(rest, getenv, os.Stdin, nopCloser{stdout}, stderr)
	case "serve", "rebuild", "healthcheck":
	default:
		fmt.Fprintf(stderr, "tempmail: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	cfg, err := config.Parse(cmd, rest, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "tempmail: %v\n", err)
		return 2
	}
	if cmd == "healthcheck" {
		return healthcheck(cfg, stdout, stderr)
	}
	log := logs.New(stderr, cfg.LogFormat, cfg.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopProfile, err := startProfile()
	if err != nil {
		log.Error("cannot write the CPU profile TEMPMAIL_CPUPROFILE names", "err", err)
		return 1
	}
	if cfg.MemoryLimit > 0 {
		// Without it the heap follows the write rate: the embedded server
		// keeps every block written in the last seconds cached and lets
		// go of older ones only when the GC runs (docs/BENCHMARKS.md,
		// "Memory"). A rebuild writes as fast as it can.
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	if cmd == "rebuild" {
		err = rebuild(ctx, cfg, log, stdout)
	} else {
		err = serve(ctx, cfg, log)
	}
	stopProfile()
	if err != nil {
		// Through the logger, so that a JSON log stays JSON to its end.
		log.Error("tempmail "+cmd+" failed", "err", err)
		return 1
	}
	return 0
}

// startProfile writes a CPU profile of the whole run to the file that
// TEMPMAIL_CPUPROFILE names, for the benchmarks (docs/BENCHMARKS.md).
func startProfile() (stop func(), err error) {
	path := os.Getenv("TEMPMAIL_CPUPROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func serve(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	svc, err := Start(ctx, cfg, log)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case err = <-svc.Fatal():
	}
	if path := os.Getenv("TEMPMAIL_MEMPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.WriteHeapProfile(f) // before the stop frees it all
			f.Close()
		}
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	svc.Shutdown(sctx)
	log.Info("stopped")
	return err
}
