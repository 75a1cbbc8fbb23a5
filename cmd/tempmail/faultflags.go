package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"tempmail/client"
)

// The flags of a fault rule, an inbox's (`tempmail inbox fault`) or the
// service's (`tempmail fault add`), checked as the service would before
// any request; and what the fault commands' tables print.

// faultReply is what --reply must begin with: a 4xx or 5xx code, then a
// space or nothing.
var faultReply = regexp.MustCompile(`^[45][0-9][0-9]( |$)`)

// ruleFlags are the flags of a rule, an inbox's (`inbox fault`) or the
// service's (`fault add`, which has --to, --client and --rate too).
type ruleFlags struct {
	spec     client.FaultSpec
	fraction string // --fraction as given: set or not
}

func (rf *ruleFlags) register(fs *flag.FlagSet, service bool) {
	spec := &rf.spec
	if service {
		fs.StringVar(&spec.Command, "command", "", "the SMTP `command` the rule acts at: CONNECT (in place of the 220 greeting), EHLO,\n"+
			"MAIL, RCPT (the recipient refused), DATA (--close: the connection closed in the middle of the\n"+
			"message; --delay: stalled), or AFTER_DATA (once the message's data is in, in place of the 250)")
	} else {
		fs.StringVar(&spec.Command, "command", "", "the SMTP `command` the rule acts at: RCPT (the recipient refused), DATA (with --close:\n"+
			"the connection closed in the middle of the message), or AFTER_DATA (once the message's data is in, in\n"+
			"place of the 250 that would store it)")
	}
	fs.StringVar(&spec.Reply, "reply", "", "what the service answers there instead: a 4xx or 5xx `reply`, \"CODE [X.Y.Z] text\", such as\n"+
		"\"451 4.7.1 try again later\" (a 421 closes the connection after it)")
	fs.IntVar(&spec.Times, "times", 0, "act on the first `N` matching attempts only; without --times, --every or --fraction: on every one")
	fs.IntVar(&spec.Every, "every", 0, "act on every `N`th matching attempt only")
	fs.Func("fraction", "act on this share of the matching attempts only, a `number` more than 0 and at most 1", func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return errors.New("not a number more than 0 and at most 1")
		}
		spec.Fraction, rf.fraction = f, v
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
	greylistKey := "client and sender"
	if service {
		greylistKey = "client, sender and recipient"
		fs.StringVar(&spec.To, "to", "", "act only when the recipient (RCPT TO) is this `address`, or matches it with '*'; from RCPT on")
		fs.StringVar(&spec.Client, "client", "", "act only on SMTP clients at this address or in this prefix, an `IP|prefix` (192.0.2.0/24)")
		fs.IntVar(&spec.Rate, "rate", 0, "at CONNECT or MAIL: let each client pass `N` a minute (per node), and answer the rest\n"+
			"with --reply (default \"421 4.7.0 Too much from your address, slow down\")")
	}
	fs.DurationVar(&spec.Greylist, "greylist", 0, "at RCPT: refuse the first attempt of each "+greylistKey+" (with --reply, default\n"+
		"\"451 4.7.1 Greylisted, try again later\"), and its retries until this `duration` has passed since it;\nat most 1h")
	fs.IntVar(&spec.Priority, "priority", 0, "rules of a higher `N` (-1000 to 1000) are asked first; then the oldest")
	expires := "the rule ends after this `duration`; 0s: the service's default, 1h"
	if !service {
		expires = "the rule ends after this `duration`, at most the inbox's remaining life; 0s: the service's\ndefault, 1h"
	}
	fs.DurationVar(&spec.ExpiresIn, "expires-in", 0, expires)
}

// Bounds the service sets on a rule, checked before it is called.
const (
	maxFaultDelay    = 60 * time.Second
	maxFaultGreylist = time.Hour
	maxFaultRate     = 100000
	maxFaultPriority = 1000
)

// check says what is wrong with the flags, as the service would ("": as
// far as can be told before calling it, nothing), and settles them as the
// service reads them.
func (rf *ruleFlags) check(service bool) string {
	spec := &rf.spec
	spec.Command = strings.ToUpper(strings.TrimSpace(spec.Command))
	spec.Reply = strings.TrimSpace(spec.Reply)
	spec.To, spec.Client = strings.TrimSpace(spec.To), strings.TrimSpace(spec.Client)
	commands := client.FaultCommands
	if service {
		commands = client.ServiceFaultCommands
	}
	before := slices.Contains([]string{"CONNECT", "EHLO", "HELO", "MAIL"}, spec.Command)
	switch {
	case spec.Command == "":
		return "--command is required: one of " + strings.Join(commands, ", ")
	case !service && before:
		return fmt.Sprintf("--command %s comes before the recipient is known: an inbox's rule acts at %s", spec.Command,
			strings.Join(commands, ", "))
	case !slices.Contains(commands, spec.Command):
		return fmt.Sprintf("--command %q is not one of %s", client.Printable(spec.Command), strings.Join(commands, ", "))
	case spec.Greylist < 0 || spec.Greylist > maxFaultGreylist:
		return "--greylist must be from 0s to 1h"
	case spec.Greylist > 0 && spec.Command != "RCPT":
		return "--greylist acts at RCPT, where the client, the sender and the recipient are known: give --command RCPT"
	case spec.Rate < 0 || spec.Rate > maxFaultRate:
		return fmt.Sprintf("--rate must be from 1 to %d a minute", maxFaultRate)
	case spec.Rate > 0 && spec.Command != "CONNECT" && spec.Command != "MAIL":
		return "--rate acts at CONNECT or MAIL: give --command CONNECT or MAIL"
	case spec.Close && spec.Reply != "":
		return "--close closes the connection instead of replying: give --reply or --close, not both"
	case spec.Close && (spec.Greylist > 0 || spec.Rate > 0):
		return "--greylist and --rate reply; they do not close: leave out --close"
	case spec.Command == "DATA" && spec.Reply != "":
		return "the service answers DATA with 354 before the message comes: give --reply with --command AFTER_DATA, " +
			"or --close to close the connection in the middle of the message"
	case spec.Command == "DATA" && !spec.Close && spec.Delay == 0:
		return "at DATA a rule closes the connection in the middle of the message (--close) or stalls it (--delay)"
	case !spec.Close && spec.Reply == "" && spec.Greylist == 0 && spec.Rate == 0 && spec.Command != "DATA":
		return fmt.Sprintf("--reply is required (or --close): what the service answers at %s, such as \"451 4.7.1 try again later\"", spec.Command)
	case spec.Reply != "" && !faultReply.MatchString(spec.Reply):
		return fmt.Sprintf("--reply %q does not begin with a 4xx or 5xx code: \"CODE [X.Y.Z] text\", such as \"451 4.7.1 try again later\"",
			client.Printable(spec.Reply))
	case spec.Times < 0:
		return "--times must be 0 or more"
	case spec.Every < 0:
		return "--every must be 0 or more"
	case countSet(spec.Times != 0, spec.Every != 0, rf.fraction != "", spec.Greylist != 0, spec.Rate != 0) > 1:
		if service {
			return "give at most one of --times, --every, --fraction, --greylist and --rate"
		}
		return "give at most one of --times, --every, --fraction and --greylist"
	case spec.Seed != nil && rf.fraction == "":
		return "--seed applies to --fraction: give both"
	case spec.Delay < 0 || spec.Delay > maxFaultDelay:
		return "--delay must be from 0s to 60s"
	case spec.Priority < -maxFaultPriority || spec.Priority > maxFaultPriority:
		return fmt.Sprintf("--priority must be from %d to %d", -maxFaultPriority, maxFaultPriority)
	case spec.ExpiresIn < 0:
		return "--expires-in must be more than 0s (or 0: the service's default, 1h)"
	case spec.To != "" && (before || spec.Command == "EHLO"):
		return "--to matches the recipient, known from RCPT on: give --command RCPT, DATA or AFTER_DATA"
	case spec.Client != "" && !validClient(spec.Client):
		return fmt.Sprintf("--client %q is neither an IP address nor a prefix such as 192.0.2.0/24", client.Printable(spec.Client))
	}
	return ""
}

// validClient tells an IP address or a prefix, as --client takes.
func validClient(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	_, err := netip.ParsePrefix(s)
	return err == nil
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

// attemptCode is an attempt's code as the tables show it: "-" for a
// connection closed, to which no code was answered.
func attemptCode(a client.Attempt) string {
	if a.Code == 0 {
		return "-"
	}
	return strconv.Itoa(a.Code)
}

// orNil is *s, or "-" for nil or nothing.
func orNil(s *string) string {
	if s == nil {
		return "-"
	}
	return orDash(*s)
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

// printRules writes rules as a table, one a line under a heading; wide
// (the service's and a tenant's) adds the recipient, the client and the
// priority.
func printRules(w io.Writer, list []client.FaultRule, wide bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if wide {
		fmt.Fprintln(tw, "id\tcommand\treply\tattempts\tdelay\tfrom\tto\tclient\tpriority\tfired\texpires")
	} else {
		fmt.Fprintln(tw, "id\tcommand\treply\tattempts\tdelay\tfrom\tfired\texpires")
	}
	for _, r := range list {
		reply := r.Reply
		if r.Close {
			reply = "(close)"
		}
		delay := r.Delay
		if delay == "" || delay == "0s" {
			delay = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t", client.Printable(r.ID), client.Printable(r.Command),
			client.Printable(reply), whichAttempts(r), client.Printable(delay), client.Printable(orDash(r.From)))
		if wide {
			fmt.Fprintf(tw, "%s\t%s\t%d\t", client.Printable(orDash(r.To)), client.Printable(orDash(r.Client)), r.Priority)
		}
		fmt.Fprintf(tw, "%d\t%s\n", r.Fired, shownTime(r.ExpiresAt.Time))
	}
	tw.Flush()
}

// printAttempts writes attempts as a table, newest first as they come;
// wide (the service's and a tenant's) adds the recipient.
func printAttempts(w io.Writer, list []client.Attempt, wide bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if wide {
		fmt.Fprintln(tw, "at\tclient\tfrom\tto\tcommand\tcode\trule\tmessage")
	} else {
		fmt.Fprintln(tw, "at\tclient\tfrom\tcommand\tcode\trule\tmessage")
	}
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t", shownTime(a.At.Time), client.Printable(orNil(a.Client)), client.Printable(orDash(a.From)))
		if wide {
			fmt.Fprintf(tw, "%s\t", client.Printable(orDash(a.To)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", client.Printable(a.Command), attemptCode(a),
			client.Printable(orNil(a.RuleID)), client.Printable(orNil(a.MessageID)))
	}
	tw.Flush()
}
