package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
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
	"tempmail/service"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

const usage = `usage: tempmail <command> [flags]

commands:
  serve        run the service (HTTP, SMTP, embedded NATS)
  rebuild      replay the event log into fresh views (the server must be stopped)
  healthcheck  exit 0 if the service at --http-addr is ready, else 1
  version      print the version

clients of a running service (--server, or TEMPMAIL_SERVER; --token, or TEMPMAIL_TOKEN; --key, or
TEMPMAIL_KEY: a tenant's API key, whose tenant the inboxes it makes are):
  inbox new    make an inbox and print its address (or its JSON, or --env lines)
  inbox delete delete an inbox and its mail
  inbox fault  add a fault rule: what SMTP deliveries to the inbox meet instead (a 4xx, a 5xx, a close)
  inbox faults list the inbox's fault rules; inbox fault delete ID deletes one
  inbox attempts
               show the SMTP delivery attempts to the inbox: what each met, and the rule that acted
  wait         wait for mail in an inbox and print its code, link or message
  mcp          serve the MCP tools for AI agents over stdin and stdout

the admin's (--api-token, or TEMPMAIL_API_TOKEN; or --key with the admin scope):
  tenant new   make a tenant, a team served apart from the others, and print its id
  tenant list  list the tenants: id, name, quota and domains
  tenant delete
               delete a tenant: its keys refused, its inboxes gone, its domains inactive
  key new      make a key of a tenant, with its scopes, and print it (once)
  key revoke   revoke a key: the service refuses it from then on
  fault add    add a fault rule of the service's: what the SMTP deliveries it matches meet (CONNECT
               "421 4.3.2 paused" pauses intake; a greylist, a rate, a 4xx, a 5xx, a close)
  fault list   list the service's fault rules; fault delete ID deletes one
  attempts     show the SMTP attempts the service's rules acted on (--rcpt: to one address)

Run 'tempmail <command> --help' (or 'tempmail help <command>') for the flags of a command.
`

const versionUsage = `usage: tempmail version

Prints the version this binary was built as. It takes no flags.
`

// isHelp tells the arguments that ask for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// run is the whole command line: help goes to stdout (exit 0), a mistake
// in the command line or a value that cannot be used to stderr (exit 2)
// before anything is created or started, and a failure of the command
// itself to the log (exit 1).
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch {
	case isHelp(cmd) && len(rest) > 0 && !isHelp(rest[0]):
		return run([]string{rest[0], "-h"}, getenv, stdout, stderr)
	case isHelp(cmd):
		fmt.Fprint(stdout, usage)
		return 0
	case cmd == "version" || cmd == "--version" || cmd == "-version":
		if len(rest) > 0 && isHelp(rest[0]) {
			fmt.Fprint(stdout, versionUsage)
			return 0
		}
		if len(rest) > 0 {
			fmt.Fprintf(stderr, "tempmail: version takes no flags or arguments (got %q)\n", rest[0])
			return 2
		}
		fmt.Fprintln(stdout, "tempmail", buildVersion())
		return 0
	case cmd == "inbox":
		return runInbox(rest, getenv, stdout, stderr)
	case cmd == "wait":
		return runWait(rest, getenv, stdout, stderr)
	case cmd == "mcp":
		return runMCP(rest, getenv, os.Stdin, nopCloser{stdout}, stderr)
	case cmd == "tenant":
		return runTenant(rest, getenv, stdout, stderr)
	case cmd == "key":
		return runKey(rest, getenv, stdout, stderr)
	case cmd == "fault":
		return runFault(rest, getenv, stdout, stderr)
	case cmd == "attempts":
		return runAttempts(rest, getenv, stdout, stderr)
	case cmd == "serve" || cmd == "rebuild" || cmd == "healthcheck":
	default:
		fmt.Fprintf(stderr, "tempmail: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	cfg, err := config.Parse(cmd, rest, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil && cmd != "healthcheck" {
		err = checkFiles(cfg)
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
		// "Memory"). A rebuild writes as fast as it can: its default is
		// lower (config's commandDefaults), so that the collector keeps
		// what the server reads and lets go within it.
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

// checkFiles reads the files the configuration names before anything is
// created or started (config reads no files), so that one that is
// missing, unreadable or unfit stops the command as any other invalid
// value does: exit status 2, no data directory made, no token generated.
func checkFiles(cfg config.Config) error {
	if fi, err := os.Stat(cfg.DataDir); err == nil && !fi.IsDir() {
		return fmt.Errorf("invalid --data-dir %s: it is a file, not a directory", cfg.DataDir)
	}
	if cfg.TLSCert != "" {
		if _, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey); err != nil {
			return fmt.Errorf("invalid --tls-cert/--tls-key: %v", err)
		}
	}
	if cfg.NATSTLSCert != "" {
		if _, err := tls.LoadX509KeyPair(cfg.NATSTLSCert, cfg.NATSTLSKey); err != nil {
			return fmt.Errorf("invalid --nats-tls-cert/--nats-tls-key: %v", err)
		}
	}
	if cfg.NATSTLSCA != "" {
		b, err := os.ReadFile(cfg.NATSTLSCA)
		if err == nil && !x509.NewCertPool().AppendCertsFromPEM(b) {
			err = errors.New("it holds no PEM certificate")
		}
		if err != nil {
			return fmt.Errorf("invalid --nats-tls-ca %s: %v", cfg.NATSTLSCA, err)
		}
	}
	if cfg.NATSCreds != "" {
		if _, err := os.ReadFile(cfg.NATSCreds); err != nil {
			return fmt.Errorf("invalid --nats-creds: %v", err)
		}
	}
	return nil
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
	svc, err := service.Start(ctx, cfg, service.Options{Logger: log, Version: buildVersion()})
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
	sctx, cancel := context.WithTimeout(context.Background(), service.ShutdownGrace)
	defer cancel()
	svc.Shutdown(sctx)
	log.Info("stopped")
	return err
}

// rebuild replays the log into fresh views, and says what it did.
func rebuild(ctx context.Context, cfg config.Config, log *slog.Logger, out io.Writer) error {
	res, err := service.Rebuild(ctx, cfg, log)
	if err != nil {
		return err
	}
	rate := float64(res.Events) / max(res.Took.Seconds(), 1e-9)
	fmt.Fprintf(out, "rebuilt views generation %d: %d events, %d entries in %s (%.0f events/s)\n",
		res.Generation, res.Events, res.Keys, res.Took.Round(time.Millisecond), rate)
	return nil
}
