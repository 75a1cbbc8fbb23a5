package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"tempmail/client"
)

// The fault rules of an inbox (docs/failing-on-purpose.md), by its token:
// `tempmail inbox fault` adds one, `inbox faults` lists them, `inbox fault
// delete ID` deletes one, and `inbox attempts` shows what the SMTP
// deliveries to the inbox met.

const (
	inboxFaultUsage = "tempmail inbox fault --command CMD (--reply \"CODE [X.Y.Z] TEXT\" | --close) [--times N | --every N |\n" +
		"                            --fraction F [--seed N]] [--delay D] [--from ADDRESS] [--expires-in D] [--json]\n" +
		"                            [--token T] [--server URL] [--read-key K] [--key K]"
	inboxFaultsUsage      = "tempmail inbox faults [--json] [--token T] [--server URL] [--read-key K] [--key K]"
	inboxFaultDeleteUsage = "tempmail inbox fault delete ID [--token T] [--server URL] [--read-key K] [--key K]"
	inboxAttemptsUsage    = "tempmail inbox attempts [--json] [--token T] [--server URL] [--read-key K] [--key K]"
)

// maxFaultDelay bounds --delay, as the service does.
const maxFaultDelay = 60 * time.Second

// faultReply is what --reply must begin with: a 4xx or 5xx code, then a
// space or nothing.
var faultReply = regexp.MustCompile(`^[45][0-9][0-9]( |$)`)

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
	var spec client.FaultSpec
	fs.StringVar(&spec.Command, "command", "", "the SMTP `command` the rule acts at: RCPT (the recipient refused), DATA (with --close:\n"+
		"the connection closed in the middle of the message), or AFTER_DATA (once the message's data is in, in\n"+
		"place of the 250 that would store it)")
	fs.StringVar(&spec.Reply, "reply", "", "what the service answers there instead: a 4xx or 5xx `reply`, \"CODE [X.Y.Z] text\", such as\n"+
		"\"451 4.7.1 try again later\" (a 421 closes the connection after it)")
	fs.IntVar(&spec.Times, "times", 0, "act on the first `N` matching attempts only; without --times, --every or --fraction: on every one")
	fs.IntVar(&spec.Every, "every", 0, "act on every `N`th matching attempt only")
	fraction := ""
	fs.Func("fraction", "act on this share of the matching attempts only, a `number` more than 0 and at most 1", func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return errors.New("not a number more than 0 and at most 1")
		}
		spec.Fraction, fraction = f, v
		return nil
	})
	fs.Func("seed", "with --fraction, which attempts it acts on: the same `integer` acts on the same ones every run (default 0)", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return errors.New("not an integer from 0 to 18446744073709551615")
		}
		spec.Seed = &n
		return nil
	})
	fs.DurationVar(&spec.Delay, "delay", 0, "wait this `duration` before the reply (or the close), at most 60s")
	fs.BoolVar(&spec.Close, "close", false, "close the connection at the command instead of replying (at DATA: in the middle of the message)")
	fs.StringVar(&spec.From, "from", "", "act only when the sender (MAIL FROM) is this `address`, or matches it with '*' (*@shop.example)")
	fs.DurationVar(&spec.ExpiresIn, "expires-in", 0, "the rule ends after this `duration`, at most the inbox's remaining life; 0s: the service's\n"+
		"default, 1h")
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
	spec.Command = strings.ToUpper(strings.TrimSpace(spec.Command))
	spec.Reply = strings.TrimSpace(spec.Reply)
	token := cf.token()
	switch {
	case token == "":
		return fail("--token (or TEMPMAIL_TOKEN) is required: the token of the inbox whose deliveries the rule acts on")
	case spec.Command == "":
		return fail("--command is required: one of %s", strings.Join(client.FaultCommands, ", "))
	case slices.Contains([]string{"CONNECT", "EHLO", "HELO", "MAIL"}, spec.Command):
		return fail("--command %s comes before the recipient is known: an inbox's rule acts at %s", spec.Command,
			strings.Join(client.FaultCommands, ", "))
	case !slices.Contains(client.FaultCommands, spec.Command):
		return fail("--command %q is not one of %s", client.Printable(spec.Command), strings.Join(client.FaultCommands, ", "))
	case spec.Close && spec.Reply != "":
		return fail("--close closes the connection instead of replying: give --reply or --close, not both")
	case spec.Command == "DATA" && spec.Reply != "":
		return fail("the service answers DATA with 354 before the message comes: give --reply with --command AFTER_DATA, " +
			"or --close to close the connection in the middle of the message")
	case !spec.Close && spec.Reply == "":
		return fail("--reply is required (or --close): what the service answers at %s, such as \"451 4.7.1 try again later\"", spec.Command)
	case !spec.Close && !faultReply.MatchString(spec.Reply):
		return fail("--reply %q does not begin with a 4xx or 5xx code: \"CODE [X.Y.Z] text\", such as \"451 4.7.1 try again later\"",
			client.Printable(spec.Reply))
	case spec.Times < 0:
		return fail("--times must be 0 or more")
	case spec.Every < 0:
		return fail("--every must be 0 or more")
	case countSet(spec.Times != 0, spec.Every != 0, fraction != "") > 1:
		return fail("give at most one of --times, --every and --fraction")
	case spec.Seed != nil && fraction == "":
		return fail("--seed applies to --fraction: give both")
	case spec.Delay < 0 || spec.Delay > maxFaultDelay:
		return fail("--delay must be from 0s to 60s")
	case spec.ExpiresIn < 0:
		return fail("--expires-in must be more than 0s (or 0: the service's default, 1h)")
	}
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
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(r.JSON))
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
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(raw))
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tcommand\treply\tattempts\tdelay\tfrom\tfired\texpires")
	for _, r := range list {
		reply := r.Reply
		if r.Close {
			reply = "(close)"
		}
		delay := r.Delay
		if delay == "" || delay == "0s" {
			delay = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", client.Printable(r.ID), client.Printable(r.Command), client.Printable(reply),
			whichAttempts(r), client.Printable(delay), client.Printable(orDash(r.From)), r.Fired, shownTime(r.ExpiresAt))
	}
	tw.Flush()
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
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(raw))
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "at\tclient\tfrom\tcommand\tcode\trule\tmessage")
	for _, a := range list {
		code := "-" // a connection closed: no code was answered
		if a.Code != 0 {
			code = strconv.Itoa(a.Code)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", shownTime(a.At), client.Printable(orDash(a.Client)), client.Printable(orDash(a.From)),
			client.Printable(a.Command), code, client.Printable(orDash(a.RuleID)), client.Printable(orDash(a.MessageID)))
	}
	tw.Flush()
	return 0
}

// countSet is how many of bs are true.
func countSet(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// orDash is s, or "-" for nothing, so that a table's columns stay apart.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// shownTime is a time as the tables show it: UTC, to the millisecond.
func shownTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
