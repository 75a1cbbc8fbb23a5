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
	"time"

	"tempmail/client"
	"tempmail/mcpserver"
)

// The commands that talk to a running service, for shell scripts and AI
// agents' hosts: `tempmail inbox new`, `tempmail wait` and `tempmail mcp`.
// They are clients of the HTTP API (package client), so they work against
// any tempmail, local or remote. What they print of an answer (a code, a
// link, a message, an error) was written by a sender or by the server:
// control, bidirectional and invisible characters in it are written out
// (client.Printable, client.PrintableJSON), never sent to the terminal.

// defaultServer is where the commands look for the service without
// --server or TEMPMAIL_SERVER: `tempmail serve`'s default address.
const defaultServer = "http://127.0.0.1:8080"

// maxWaitTimeout bounds `tempmail wait --timeout`.
const maxWaitTimeout = 24 * time.Hour

// clientFlags are the flags every client command takes.
type clientFlags struct {
	server, readKey string
	getenv          func(string) string
}

func (f *clientFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	server := getenv("TEMPMAIL_SERVER")
	if server == "" {
		server = defaultServer
	}
	f.getenv = getenv
	fs.StringVar(&f.server, "server", server, "the service's base URL (env TEMPMAIL_SERVER)")
	// Its variable is read after parsing, not shown as the default: help
	// must not print a secret.
	fs.StringVar(&f.readKey, "read-key", "", "the service's --read-key, if it has one (env TEMPMAIL_READ_KEY)")
}

func (f *clientFlags) client() (*client.Client, error) {
	c, err := client.New(f.server)
	if err != nil {
		return nil, err
	}
	c.ReadKey = f.readKey
	if c.ReadKey == "" {
		c.ReadKey = f.getenv("TEMPMAIL_READ_KEY")
	}
	return c, nil
}

// parseClientFlags parses args; done says the command should end with
// status: help was asked for (written to stdout, as the other commands'
// help is: `tempmail wait -h | less`), or the flags are bad (said on
// stderr).
func parseClientFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (status int, done bool) {
	var said bytes.Buffer
	fs.SetOutput(&said)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(said.Bytes())
		return 0, true
	case err != nil:
		stderr.Write(said.Bytes())
		return 2, true
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.SetOutput(stderr)
		fs.Usage()
		return 2, true
	}
	return 0, false
}

// signalContext ends on Ctrl-C or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// runInbox runs `tempmail inbox new`: it makes an inbox and prints its
// address, or with --json the service's answer (with the token).
func runInbox(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	const usage = "usage: tempmail inbox new [--name N] [--domain D] [--json] [--server URL] [--read-key K]"
	if len(args) == 0 || args[0] != "new" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stdout, usage)
			return 0
		}
		fmt.Fprintln(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("tempmail inbox new", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	name := fs.String("name", "", "the part before the @; empty: the service chooses one")
	domain := fs.String("domain", "", "one of the service's domains; empty: its first")
	asJSON := fs.Bool("json", false, "print the inbox as JSON (token, address, created_at, expires_at), not only its address")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage+"\n\nMakes an inbox on the service at --server and prints its address, or with --json\n"+
			"the service's answer, which has the token that tempmail wait needs.\n\n")
		fs.PrintDefaults()
	}
	if status, done := parseClientFlags(fs, args[1:], stdout, stderr); done {
		return status
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail inbox new: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	in, err := c.CreateInbox(ctx, *name, *domain)
	if err != nil {
		fmt.Fprintf(stderr, "tempmail inbox new: %s\n", client.Printable(err.Error()))
		return 2
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(in.JSON))
	} else {
		fmt.Fprintln(stdout, client.Printable(in.Address))
	}
	return 0
}

// runWait runs `tempmail wait`: it waits for a code (the default), a link
// or a message in an inbox and prints it. Exit status: 0 found, 1 nothing
// within --timeout (one line on stderr), 2 anything else.
func runWait(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail wait", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	token := fs.String("token", "", "the inbox's token (required)")
	otp := fs.Bool("otp", false, "print the newest one-time code (the default)")
	link := fs.Bool("link", false, "print the newest link")
	message := fs.Bool("message", false, "print the newest message, as JSON")
	pattern := fs.String("pattern", "", "for --otp and --link: a regular expression (RE2) the code or the link's URL matches")
	from := fs.String("from", "", "only messages whose sender (address or name) contains this, in any case")
	subject := fs.String("subject", "", "only messages whose subject contains this, in any case")
	timeout := fs.Duration("timeout", time.Minute, "how long to wait; longer than 60s chains held requests; 0: look once")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: tempmail wait --token T [--otp | --link | --message] [--pattern RE] [--from S] [--subject S] [--timeout 60s]\n\n"+
			"Prints the code, the link, or the message as JSON, and exits 0; what matches already counts. Nothing\n"+
			"within --timeout: exits 1 with one line on stderr. Any other error exits 2.\n\n")
		fs.PrintDefaults()
	}
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tempmail wait: "+format+"\n", a...)
		return 2
	}
	kinds := 0
	for _, b := range []bool{*otp, *link, *message} {
		if b {
			kinds++
		}
	}
	switch {
	case strings.TrimSpace(*token) == "":
		return fail("--token is required: the token of the inbox to wait on (tempmail inbox new --json prints it)")
	case kinds > 1:
		return fail("choose one of --otp, --link and --message")
	case *message && *pattern != "":
		return fail("--pattern applies to --otp and --link, not --message")
	case *timeout < 0 || *timeout > maxWaitTimeout:
		return fail("--timeout must be from 0s to %s", maxWaitTimeout)
	}
	c, err := cf.client()
	if err != nil {
		return fail("%v", err)
	}
	// A CI job would rather wait out a busy moment than fail on it.
	c.RetryBusy = true
	ctx, stop := signalContext()
	defer stop()
	q := client.Query{From: *from, Subject: *subject, Pattern: *pattern}
	var out, what string
	switch {
	case *link:
		what = "link"
		var l *client.FoundLink
		if l, err = c.WaitLink(ctx, *token, q, *timeout); err == nil {
			out = client.Printable(l.Link)
		}
	case *message:
		what = "message"
		var m *client.Message
		if m, err = c.WaitMessage(ctx, *token, q, *timeout); err == nil {
			out = string(client.PrintableJSON(m.JSON))
		}
	default:
		what = "code"
		var code *client.Code
		if code, err = c.WaitOTP(ctx, *token, q, *timeout); err == nil {
			out = client.Printable(code.Code)
		}
	}
	switch {
	case err == nil:
		fmt.Fprintln(stdout, out)
		return 0
	case errors.Is(err, client.ErrTimeout):
		fmt.Fprintf(stderr, "tempmail wait: no %s within %s\n", what, *timeout)
		return 1
	case ctx.Err() != nil:
		return fail("interrupted")
	}
	return fail("%s", client.Printable(err.Error()))
}

// runMCP runs `tempmail mcp`: the MCP tools over stdio, for hosts that
// start a local process, calling the service at --server.
func runMCP(args []string, getenv func(string) string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail mcp", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: tempmail mcp [--server URL] [--read-key K]\n\n"+
			"Serves the MCP tools (create_inbox, list_messages, read_message, wait_for_message, get_code,\n"+
			"get_link, delete_inbox) over stdin and stdout, calling the service at --server.\n\n")
		fs.PrintDefaults()
	}
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
