package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"tempmail/client"
)

// The fault rules of an inbox (docs/failing-on-purpose.md), by its token:
// `tempmail inbox fault` adds one, `inbox faults` lists them, `inbox fault
// delete ID` deletes one, and `inbox attempts` shows what the SMTP
// deliveries to the inbox met.

const (
	inboxFaultUsage = "tempmail inbox fault --command CMD (--reply \"CODE [X.Y.Z] TEXT\" | --close) [--times N | --every N |\n" +
		"                            --fraction F [--seed N] | --greylist D] [--delay D] [--from ADDRESS] [--priority N]\n" +
		"                            [--expires-in D] [--json] [--token T] [--server URL] [--read-key K] [--key K]"
	inboxFaultsUsage      = "tempmail inbox faults [--json] [--token T] [--server URL] [--read-key K] [--key K]"
	inboxFaultDeleteUsage = "tempmail inbox fault delete ID [--token T] [--server URL] [--read-key K] [--key K]"
	inboxAttemptsUsage    = "tempmail inbox attempts [--json] [--token T] [--server URL] [--read-key K] [--key K]"
)

// runInboxFault runs `tempmail inbox fault`: it adds a rule to the inbox
// and prints its id, or with --json the rule; `inbox fault delete ID`
// deletes one.
func runInboxFault(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "delete" {
		return runInboxFaultDelete(args[1:], getenv, stdout, stderr)
	}
	fs := flag.NewFlagSet("tempmail inbox fault", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	cf.registerToken(fs, "the inbox's `token`")
	var rf ruleFlags
	rf.register(fs, false)
	asJSON := fs.Bool("json", false, "print the rule as JSON, not only its id")
	setUsage(fs, "usage: "+inboxFaultUsage+"\n       "+inboxFaultDeleteUsage+"\n\n"+
		"Adds a fault rule to the inbox and prints its id: SMTP deliveries to the inbox meet the reply\n"+
		"(or the closed connection) at the command, instead of being taken, as the rule says, until it\n"+
		"expires. The inbox holds at most 10 rules; tempmail inbox faults lists them, tempmail inbox\n"+
		"attempts shows what each delivery met, and tempmail inbox fault delete ID ends one.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tempmail inbox fault: "+format+"\n", a...)
		return 2
	}
	token := cf.token()
	if token == "" {
		return fail("--token (or TEMPMAIL_TOKEN) is required: the token of the inbox whose deliveries the rule acts on")
	}
	if msg := rf.check(false); msg != "" {
		return fail("%s", msg)
	}
	spec := rf.spec
	c, err := cf.client()
	if err != nil {
		return fail("%v", err)
	}
	ctx, stop := signalContext()
	defer stop()
	r, err := c.AddFault(ctx, token, spec)
	var he *client.Error
	switch {
	case errors.As(err, &he) && he.Status == http.StatusForbidden && strings.Contains(he.Message, "fault rules"):
		// The inbox has all the rules it may have: no credential to check.
		return fail("%s", describe(err, cf.base, ""))
	case err != nil:
		return fail("%s", cf.failure(err))
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(bytes.TrimSpace(r.JSON)))
	} else {
		fmt.Fprintln(stdout, client.Printable(r.ID))
	}
	return 0
}

// runInboxFaultDelete deletes a rule. A rule already gone (deleted,
// expired) is what was asked for: exit 0, and it says so, as inbox delete
// does of an inbox.
func runInboxFaultDelete(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail inbox fault delete", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	cf.registerToken(fs, "the inbox's `token`")
	setUsage(fs, "usage: "+inboxFaultDeleteUsage+"\n\n"+
		"Deletes the inbox's fault rule of that id (tempmail inbox faults lists them): deliveries meet it no\n"+
		"more. A rule already gone (deleted, or expired) is no error: it says so and exits 0.\n\n")
	rest, status, done := parseArgs(fs, args, stdout, stderr)
	if done {
		return status
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tempmail inbox fault delete: "+format+"\n", a...)
		return 2
	}
	token := cf.token()
	switch {
	case len(rest) != 1 || strings.TrimSpace(rest[0]) == "":
		return fail("give the rule's id, one argument (tempmail inbox faults lists them)")
	case token == "":
		return fail("--token (or TEMPMAIL_TOKEN) is required: the token of the inbox whose rule to delete")
	}
	c, err := cf.client()
	if err != nil {
		return fail("%v", err)
	}
	ctx, stop := signalContext()
	defer stop()
	switch err := c.DeleteFault(ctx, token, strings.TrimSpace(rest[0])); {
	case err == nil:
		fmt.Fprintln(stdout, "deleted the rule: deliveries meet it no more")
	case errors.Is(err, client.ErrNoFault):
		fmt.Fprintln(stdout, "the rule was already gone: "+client.ErrNoFault.Error())
	default:
		return fail("%s", cf.failure(err))
	}
	return 0
}

// runInboxFaults lists the inbox's rules, one a line under a heading, or
// with --json as the service answers them.
func runInboxFaults(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail inbox faults", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	cf.registerToken(fs, "the inbox's `token`")
	asJSON := fs.Bool("json", false, "print the rules as a JSON array, as the service answers them")
	setUsage(fs, "usage: "+inboxFaultsUsage+"\n\n"+
		"Lists the inbox's fault rules, oldest first: id, command, reply (or close), which attempts\n"+
		"(all, times=N, every=N, fraction=F), delay, sender, how many times it acted, and when it\n"+
		"expires.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	token := cf.token()
	if token == "" {
		fmt.Fprintln(stderr, "tempmail inbox faults: --token (or TEMPMAIL_TOKEN) is required: the token of the inbox whose rules to list")
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail inbox faults: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	list, raw, err := c.Faults(ctx, token)
	if err != nil {
		fmt.Fprintf(stderr, "tempmail inbox faults: %s\n", cf.failure(err))
		return 2
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(bytes.TrimSpace(raw)))
		return 0
	}
	printRules(stdout, list, false)
	return 0
}

// whichAttempts says which attempts a rule acts on, as its flags say it.
func whichAttempts(r client.FaultRule) string {
	var s []string
	if r.Times > 0 {
		s = append(s, "times="+strconv.Itoa(r.Times))
	}
	if r.Every > 0 {
		s = append(s, "every="+strconv.Itoa(r.Every))
	}
	if r.Fraction > 0 {
		s = append(s, "fraction="+strconv.FormatFloat(r.Fraction, 'g', -1, 64))
		if r.Seed != 0 {
			s = append(s, "seed="+strconv.FormatUint(r.Seed, 10))
		}
	}
	if r.Greylist != "" {
		s = append(s, "greylist="+r.Greylist)
	}
	if r.Rate > 0 {
		s = append(s, "rate="+strconv.Itoa(r.Rate)+"/min")
	}
	if len(s) == 0 {
		return "all"
	}
	return strings.Join(s, ",")
}

// runInboxAttempts shows the SMTP delivery attempts to the inbox, newest
// first: a table, or with --json the service's answer.
func runInboxAttempts(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail inbox attempts", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	cf.registerToken(fs, "the inbox's `token`")
	asJSON := fs.Bool("json", false, "print the attempts as a JSON array, as the service answers them")
	setUsage(fs, "usage: "+inboxAttemptsUsage+"\n\n"+
		"Shows every SMTP delivery attempt to the inbox, newest first: when, from which client and sender,\n"+
		"the command that ended it and the code answered there, the rule that acted (- for none), and the\n"+
		"message stored (an attempt that ended with 250 after the data).\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	token := cf.token()
	if token == "" {
		fmt.Fprintln(stderr, "tempmail inbox attempts: --token (or TEMPMAIL_TOKEN) is required: the token of the inbox whose attempts to show")
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail inbox attempts: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	list, raw, err := c.Attempts(ctx, token)
	if err != nil {
		fmt.Fprintf(stderr, "tempmail inbox attempts: %s\n", cf.failure(err))
		return 2
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(bytes.TrimSpace(raw)))
		return 0
	}
	printAttempts(stdout, list, false)
	return 0
}
