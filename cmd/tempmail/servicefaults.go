package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"tempmail/client"
)

// The service's fault rules, the admin's (docs/failing-on-purpose.md "The
// service's rules"): `tempmail fault add` adds one, acting on every
// delivery it matches at any SMTP command, `fault list` lists them, `fault
// delete ID` deletes one, and `tempmail attempts` shows what the service's
// rules did (and, with --rcpt, an inbox's log too). They take the admin's
// credential, as `tenant` and `key` do (admin.go).

const (
	faultAddUsage = "tempmail fault add --command CMD (--reply \"CODE [X.Y.Z] TEXT\" | --close | --greylist D | --rate N)\n" +
		"                         [--times N | --every N | --fraction F [--seed N]] [--delay D] [--from ADDRESS]\n" +
		"                         [--to ADDRESS] [--client IP|PREFIX] [--priority N] [--expires-in D] [--json]\n" +
		"                         [--server URL] [--api-token T | --key K]"
	faultListUsage   = "tempmail fault list [--json] [--server URL] [--api-token T | --key K]"
	faultDeleteUsage = "tempmail fault delete ID [--server URL] [--api-token T | --key K]"
	faultUsage       = "usage: " + faultAddUsage + "\n       " + faultListUsage + "\n       " + faultDeleteUsage + "\n"
	attemptsUsage    = "tempmail attempts [--rcpt ADDRESS] [--since DURATION|TIME] [--json] [--server URL] [--api-token T | --key K]"
)

// runFault runs `tempmail fault add|list|delete`.
func runFault(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "add":
		return runFaultAdd(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "list":
		return runFaultList(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "delete":
		return runFaultDelete(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprint(stdout, faultUsage)
		return 0
	}
	fmt.Fprint(stderr, faultUsage)
	return 2
}

// runFaultAdd adds a rule of the service's and prints its id, or with
// --json the rule.
func runFaultAdd(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail fault add", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	var rf ruleFlags
	rf.register(fs, true)
	asJSON := fs.Bool("json", false, "print the rule as JSON, not only its id")
	setUsage(fs, "usage: "+faultAddUsage+"\n\n"+
		"Adds a fault rule of the service's and prints its id: every SMTP delivery it matches (by sender,\n"+
		"recipient and client) meets the reply, the closed connection, the greylisting or the rate at the\n"+
		"command, as the rule says, until it expires or is deleted. --command CONNECT --reply \"421 4.3.2\n"+
		"paused\" pauses intake. The service holds at most 50 rules; tempmail fault list lists them,\n"+
		"tempmail attempts shows what they did, and tempmail fault delete ID ends one.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tempmail fault add: "+format+"\n", a...)
		return 2
	}
	if msg := rf.check(true); msg != "" {
		return fail("%s", msg)
	}
	c, err := af.client()
	if err != nil {
		return fail("%v", err)
	}
	ctx, stop := signalContext()
	defer stop()
	r, err := c.AddServiceFault(ctx, rf.spec)
	if err != nil {
		return fail("%s", af.failure(err))
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(bytes.TrimSpace(r.JSON)))
	} else {
		fmt.Fprintln(stdout, client.Printable(r.ID))
	}
	return 0
}

// runFaultList lists the service's rules, one a line under a heading, or
// with --json as the service answers them.
func runFaultList(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail fault list", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	asJSON := fs.Bool("json", false, "print the rules as a JSON array, as the service answers them")
	setUsage(fs, "usage: "+faultListUsage+"\n\n"+
		"Lists the service's fault rules, oldest first: id, command, reply (or close), which attempts\n"+
		"(all, times=N, every=N, fraction=F, greylist=D, rate=N/min), delay, sender, recipient, client,\n"+
		"priority, how many times it acted, and when it expires.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	c, err := af.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail fault list: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	list, raw, err := c.ServiceFaults(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "tempmail fault list: %s\n", af.failure(err))
		return 2
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(bytes.TrimSpace(raw)))
		return 0
	}
	printRules(stdout, list, true)
	return 0
}

// runFaultDelete deletes a rule of the service's. A rule already gone
// (deleted, expired) is what was asked for: exit 0, and it says so.
func runFaultDelete(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail fault delete", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	setUsage(fs, "usage: "+faultDeleteUsage+"\n\n"+
		"Deletes the service's fault rule of that id (tempmail fault list lists them): deliveries meet it\n"+
		"no more. A rule already gone (deleted, or expired) is no error: it says so and exits 0.\n\n")
	rest, status, done := parseArgs(fs, args, stdout, stderr)
	if done {
		return status
	}
	if len(rest) != 1 || strings.TrimSpace(rest[0]) == "" {
		fmt.Fprintln(stderr, "tempmail fault delete: give the rule's id, one argument (tempmail fault list lists them)")
		return 2
	}
	c, err := af.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail fault delete: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	switch err := c.DeleteServiceFault(ctx, strings.TrimSpace(rest[0])); {
	case err == nil:
		fmt.Fprintln(stdout, "deleted the rule: deliveries meet it no more")
	case errors.Is(err, client.ErrNoServiceFault):
		fmt.Fprintln(stdout, "the rule was already gone: "+client.ErrNoServiceFault.Error())
	default:
		fmt.Fprintf(stderr, "tempmail fault delete: %s\n", af.failure(err))
		return 2
	}
	return 0
}

// runAttempts shows the attempts the service's rules acted on, newest
// first (with --rcpt, those to one address, with its inbox's own log): a
// table, or with --json the service's answer.
func runAttempts(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail attempts", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	rcpt := fs.String("rcpt", "", "only the attempts to this `address`, with its inbox's own attempt log (the messages stored too)")
	since := fs.String("since", "", "only the attempts at or after this `duration|time`: a duration ago (10m) or an RFC 3339 time")
	asJSON := fs.Bool("json", false, "print the attempts as a JSON array, as the service answers them")
	setUsage(fs, "usage: "+attemptsUsage+"\n\n"+
		"Shows the SMTP attempts the service's fault rules acted on, newest first (the service keeps the\n"+
		"newest 200): when, from which client, sender and recipient, the command that ended it and the\n"+
		"code answered there, the rule that acted (- for none), and the message stored.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	from, err := parseSince(*since, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "tempmail attempts: %v\n", err)
		return 2
	}
	c, err := af.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail attempts: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	list, raw, err := c.ServiceAttempts(ctx, strings.TrimSpace(*rcpt), from)
	if err != nil {
		fmt.Fprintf(stderr, "tempmail attempts: %s\n", af.failure(err))
		return 2
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(bytes.TrimSpace(raw)))
		return 0
	}
	printAttempts(stdout, list, true)
	return 0
}

// parseSince reads --since: a duration before now, or an RFC 3339 time;
// "" is any time (zero).
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q is neither a duration ago (such as 10m) nor an RFC 3339 time (such as 2026-11-29T12:00:00Z)",
		client.Printable(s))
}
