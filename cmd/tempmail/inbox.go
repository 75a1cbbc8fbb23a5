package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"tempmail/client"
)

const (
	inboxNewUsage    = "tempmail inbox new [--name N] [--domain D] [--json | --env] [--server URL] [--read-key K] [--key K]"
	inboxDeleteUsage = "tempmail inbox delete [--token T] [--server URL] [--read-key K] [--key K]"
	inboxUsage       = "usage: " + inboxNewUsage + "\n       " + inboxDeleteUsage + "\n       " + inboxFaultUsage +
		"\n       " + inboxFaultsUsage + "\n       " + inboxFaultDeleteUsage + "\n       " + inboxAttemptsUsage + "\n"
)

// runInbox runs `tempmail inbox new` and `tempmail inbox delete`, and the
// commands of an inbox's fault rules (faults.go).
func runInbox(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "new":
		return runInboxNew(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "delete":
		return runInboxDelete(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "fault":
		return runInboxFault(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "faults":
		return runInboxFaults(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "attempts":
		return runInboxAttempts(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprint(stdout, inboxUsage)
		return 0
	}
	fmt.Fprint(stderr, inboxUsage)
	return 2
}

// runInboxNew makes an inbox and prints its address, or with --json the
// service's answer (with the token), or with --env the lines a shell or
// $GITHUB_ENV takes.
func runInboxNew(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail inbox new", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	name := fs.String("name", "", "the `name` before the @; empty: the service chooses one")
	domain := fs.String("domain", "", "the `domain`, one of the service's; empty: its first")
	asJSON := fs.Bool("json", false, "print the inbox as JSON (token, address, created_at, expires_at), not only its address")
	asEnv := fs.Bool("env", false, "print TEMPMAIL_TOKEN=... and TEMPMAIL_ADDRESS=... lines, for eval or $GITHUB_ENV")
	setUsage(fs, "usage: "+inboxNewUsage+"\n\n"+
		"Makes an inbox on the service at --server and prints its address; with --json the service's\n"+
		"answer, which has the token that tempmail wait needs; with --env two lines,\n"+
		"TEMPMAIL_TOKEN=... and TEMPMAIL_ADDRESS=..., that a shell can eval and $GITHUB_ENV takes as they\n"+
		"are: tempmail wait and tempmail inbox delete read TEMPMAIL_TOKEN. Made with --key (or TEMPMAIL_KEY), the\n"+
		"inbox is the key's tenant's, and counts against its quota.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	if *asJSON && *asEnv {
		fmt.Fprintln(stderr, "tempmail inbox new: choose one of --json and --env")
		return 2
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
		fmt.Fprintf(stderr, "tempmail inbox new: %s\n", cf.failure(err))
		return 2
	}
	switch {
	case *asJSON:
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(in.JSON))
	case *asEnv:
		// Printed as they are, unquoted: $GITHUB_ENV takes a line's value
		// literally, quotes and all. So a value a shell would read as
		// anything but itself is refused, never printed for eval.
		for _, v := range []struct{ name, value string }{{"TEMPMAIL_TOKEN", in.Token}, {"TEMPMAIL_ADDRESS", in.Address}} {
			if !shellSafe(v.value) {
				fmt.Fprintf(stderr, "tempmail inbox new: the service answered a %s that a shell would not read as it is: %q\n",
					v.name, client.Printable(v.value))
				return 2
			}
		}
		fmt.Fprintf(stdout, "TEMPMAIL_TOKEN=%s\nTEMPMAIL_ADDRESS=%s\n", in.Token, in.Address)
	default:
		fmt.Fprintln(stdout, client.Printable(in.Address))
	}
	return 0
}

// shellSafe tells a value that a POSIX shell reads as itself unquoted, in
// an assignment, and that is one line: letters, digits and @ . _ + -.
// Tokens (base32) and addresses (a-z, 0-9, '.', '_', '-' and a domain)
// are.
func shellSafe(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', strings.ContainsRune("@._+-", r):
		default:
			return false
		}
	}
	return true
}

// runInboxDelete deletes an inbox and its mail. An inbox already gone is
// what was asked for: exit 0, and it says so.
func runInboxDelete(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail inbox delete", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	cf.registerToken(fs, "the inbox's `token`")
	setUsage(fs, "usage: "+inboxDeleteUsage+"\n\n"+
		"Deletes the inbox and all its mail, at once and for good. An inbox already gone (deleted,\n"+
		"expired, or never made) is no error: it says so and exits 0.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	token := cf.token()
	if token == "" {
		fmt.Fprintln(stderr, "tempmail inbox delete: --token (or TEMPMAIL_TOKEN) is required: the token of the inbox to delete")
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail inbox delete: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	switch err := c.DeleteInbox(ctx, token); {
	case err == nil:
		fmt.Fprintln(stdout, "deleted the inbox and its mail")
	case errors.Is(err, client.ErrNoInbox):
		// The words every command says of a missing inbox (describe).
		fmt.Fprintln(stdout, "the inbox was already gone: "+client.ErrNoInbox.Error())
	default:
		fmt.Fprintf(stderr, "tempmail inbox delete: %s\n", cf.failure(err))
		return 2
	}
	return 0
}
