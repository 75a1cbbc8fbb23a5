package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"tempmail/client"
	"tempmail/config"
	"tempmail/mcpserver"
)

// The commands that talk to a running service, for shell scripts and AI
// agents' hosts: `tempmail inbox new` and `inbox delete` (inbox.go),
// `tempmail wait` (wait.go) and `tempmail mcp`; and the admin's, `tempmail
// tenant` and `tempmail key` (admin.go).
// They are clients of the HTTP API (package client), so they work against
// any tempmail, local or remote. What they print of an answer (a code, a
// link, a message, an error) was written by a sender or by the server:
// control, bidirectional and invisible characters in it are written out
// (client.Printable, client.PrintableJSON), never sent to the terminal.

// defaultServer is where the commands look for the service without
// --server or TEMPMAIL_SERVER: `tempmail serve`'s default address.
const defaultServer = "http://127.0.0.1:8080"

// serverFlag is --server. Its default is defaultServer, and
// TEMPMAIL_SERVER stands for it when it is not given: the variable is read
// after parsing, not made the default, so that help shows the same default
// on every machine (the docs copy it).
type serverFlag struct {
	url string
	set bool
}

func (s *serverFlag) String() string {
	if s == nil {
		return ""
	}
	return s.url
}

func (s *serverFlag) Set(v string) error {
	s.url, s.set = v, true
	return nil
}

// register registers --server on fs.
func (s *serverFlag) register(fs *flag.FlagSet) {
	s.url = defaultServer
	fs.Var(s, "server", "the service's base `URL`")
}

// value is --server, else TEMPMAIL_SERVER, else the default.
func (s *serverFlag) value(getenv func(string) string) string {
	if v := getenv("TEMPMAIL_SERVER"); !s.set && v != "" {
		return v
	}
	return s.url
}

// envTwin is the variable a client command reads for the flag name when
// it is not given, "" for none; its usage says so.
func envTwin(name string) string {
	switch name {
	case "server", "read-key", "key", "token", "api-token":
		return config.EnvName(name)
	}
	return ""
}

// setUsage makes fs's usage head, then its flags as users type them
// (--flag), each with its default and its variable.
func setUsage(fs *flag.FlagSet, head string) {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), head)
		config.WriteFlags(fs.Output(), fs, envTwin)
	}
}

// clientFlags are the flags every client command takes, and --token for
// those that take one.
type clientFlags struct {
	server            serverFlag
	readKey, tok, key string
	getenv            func(string) string
	base              string // the service's base URL, once client made a client of it
}

func (f *clientFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	f.getenv = getenv
	f.server.register(fs)
	// Their variables are read after parsing, not shown as defaults: help
	// must not print a secret.
	fs.StringVar(&f.readKey, "read-key", "", "the service's read `key` (its --read-key), if it has one")
	fs.StringVar(&f.key, "key", "", "a tenant's API `key` (tm_...), sent as Authorization: Bearer; inboxes made with it are\n"+
		"its tenant's")
}

// apiKey is --key, else TEMPMAIL_KEY, and which of them it is.
func (f *clientFlags) apiKey() (key, from string) {
	if k := strings.TrimSpace(f.key); k != "" {
		return k, "--key"
	}
	if k := strings.TrimSpace(f.getenv("TEMPMAIL_KEY")); k != "" {
		return k, "TEMPMAIL_KEY"
	}
	return "", ""
}

// registerToken registers --token. Its variable, TEMPMAIL_TOKEN, is read
// after parsing, as the read key's is: help must not print a secret.
func (f *clientFlags) registerToken(fs *flag.FlagSet, usage string) {
	fs.StringVar(&f.tok, "token", "", usage)
}

// token is --token, else TEMPMAIL_TOKEN: a CI job exports it once
// (tempmail inbox new --env) and every command after finds it.
func (f *clientFlags) token() string {
	if t := strings.TrimSpace(f.tok); t != "" {
		return t
	}
	return strings.TrimSpace(f.getenv("TEMPMAIL_TOKEN"))
}

func (f *clientFlags) client() (*client.Client, error) {
	c, err := client.New(f.server.value(f.getenv))
	if err != nil {
		return nil, err
	}
	f.base = c.Server
	c.ReadKey = f.readKey
	if c.ReadKey == "" {
		c.ReadKey = f.getenv("TEMPMAIL_READ_KEY")
	}
	c.Key, _ = f.apiKey()
	return c, nil
}

// failure is what a command prints of a client's error (describe): the
// client wrote its secrets out of it. An answer that refuses the request
// names the credential to check: the key, if one was sent, else the read
// key, or a key to give.
func (f *clientFlags) failure(err error) string {
	credential := "check --read-key (TEMPMAIL_READ_KEY), or give a tenant's key in --key (TEMPMAIL_KEY)"
	if _, from := f.apiKey(); from != "" {
		credential = "check the key in " + from
	}
	return describe(err, f.base, credential)
}

// parseClientFlags parses args; done says the command should end with
// status: help was asked for (written to stdout, as the other commands'
// help is: `tempmail wait -h | less`), or the flags are bad (said on
// stderr, in one line: the usage is a --help away).
func parseClientFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (status int, done bool) {
	if status, done := parseFlags(fs, args, stdout, stderr); done {
		return status, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; run '%s --help' for usage\n", fs.Name(), client.Printable(fs.Arg(0)), fs.Name())
		return 2, true
	}
	return 0, false
}

// parseFlags parses args up to the first argument that is not a flag, as
// parseClientFlags does.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (status int, done bool) {
	var said bytes.Buffer
	fs.SetOutput(&said)
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(said.Bytes())
		return 0, true
	case err != nil:
		// What the flag package said, and the usage it wrote after, are
		// left unsaid: one line says which flag, and where the usage is.
		fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), client.Printable(config.FlagError(fs, err).Error()))
		return 2, true
	}
	return 0, false
}

// signalContext ends on Ctrl-C or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// runMCP runs `tempmail mcp`: the MCP tools over stdio, for hosts that
// start a local process, calling the service at --server.
func runMCP(args []string, getenv func(string) string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail mcp", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	setUsage(fs, "usage: tempmail mcp [--server URL] [--read-key K] [--key K]\n\n"+
		"Serves the MCP tools (create_inbox, list_messages, read_message, wait_for_message, get_code,\n"+
		"get_link, delete_inbox, and an inbox's fault rules: add_fault, list_faults, delete_fault,\n"+
		"list_attempts) over stdin and stdout, calling the service at --server, or at\n"+
		"$TEMPMAIL_SERVER: set it in the host's configuration where the host has a --server of its own\n"+
		"(the MCP Inspector: inspector --cli -e TEMPMAIL_SERVER=URL tempmail mcp ...). Every call carries\n"+
		"--key (or $TEMPMAIL_KEY): the inboxes it makes are the key's tenant's, and it sees no other's.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail mcp: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	if err := mcpserver.NewTools(buildVersion()).ServeStdio(ctx, c, stdin, stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "tempmail mcp: %s\n", client.Printable(err.Error()))
		return 1
	}
	return 0
}

// nopCloser lets run's stdout serve as the MCP transport's writer, which
// the transport closes at its end: stdout itself stays open.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
