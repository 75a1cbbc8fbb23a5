package config

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The usages of every tempmail command show flags as users type them and
// as the docs write them, --flag, where the flag package's own would show
// -flag; the client commands (package main) write theirs with WriteFlags,
// the service's commands with Usage, both through writeFlag.

// Usage writes command's usage: the flags it takes as users type them
// (--flag value), each with its default and its environment twin, in
// usageOrder. Nothing in it depends on the machine or the environment, so
// that it can be copied into the docs as it is.
func Usage(w io.Writer, command string) {
	fmt.Fprintf(w, "usage: tempmail %s [flags]\n\n%s\n", command, summary(command))
	fmt.Fprintf(w, "\nFlags (each also read from its TEMPMAIL_* variable; a flag given wins):\n")
	for _, o := range options() {
		if !Takes(command, o.name) {
			continue
		}
		def := o.defaultFor(command)
		if def == "false" {
			def = ""
		}
		writeFlag(w, o.name, placeholder(o), o.usage, def, EnvName(o.name))
	}
}

// WriteFlags writes the flags of fs as Usage writes the service's, in
// fs's order (by name). Each shows what its usage names in back quotes as
// its value (flag.UnquoteUsage), its default unless that is empty, false
// or 0, and env(name), the variable read for it when it is not given (""
// for none).
func WriteFlags(w io.Writer, fs *flag.FlagSet, env func(name string) string) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		def := f.DefValue
		if def == "false" || def == "0" {
			def = ""
		}
		writeFlag(w, f.Name, arg, usage, def, env(f.Name))
	})
}

// writeFlag writes one flag: "--name arg" on a line, and under it its
// usage, indented, ending with its default and its variable.
func writeFlag(w io.Writer, name, arg, usage, def, env string) {
	if arg != "" {
		arg = " " + arg
	}
	var notes []string
	if def != "" {
		notes = append(notes, "default "+def)
	}
	if env != "" {
		notes = append(notes, "env "+env)
	}
	if len(notes) > 0 {
		usage += " (" + strings.Join(notes, "; ") + ")"
	}
	fmt.Fprintf(w, "  --%s%s\n        %s\n", name, arg, strings.ReplaceAll(usage, "\n", "\n        "))
}

// FlagError says what the flag package found wrong with the command line
// of name (such as "tempmail wait") in the terms users type, --flag, on
// one line, and where the usage is: a mistake in one flag is better told
// alone than buried above a page of usage.
func FlagError(fs *flag.FlagSet, err error) error {
	name, msg := fs.Name(), err.Error()
	// The flag package says only "parse error" of a value it cannot read:
	// say what it takes instead.
	if head, ok := strings.CutSuffix(msg, ": parse error"); ok {
		if f := fs.Lookup(flagOf(head)); f != nil {
			msg = head + ": " + expected(f)
		}
	}
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: -"):
		msg = "unknown flag --" + strings.TrimLeft(strings.TrimPrefix(msg, "flag provided but not defined: "), "-")
	case strings.HasPrefix(msg, "flag needs an argument: -"):
		msg = "--" + strings.TrimLeft(strings.TrimPrefix(msg, "flag needs an argument: "), "-") + " needs a value"
	case strings.Contains(msg, " for flag -"): // invalid value "x" for flag -timeout: ...
		msg = strings.Replace(msg, " for flag -", " for --", 1)
	case strings.Contains(msg, " for -"): // invalid boolean value "x" for -json: ...
		msg = strings.Replace(msg, " for -", " for --", 1)
	}
	return fmt.Errorf("%s; run '%s --help' for usage", msg, name)
}

// flagOf is the flag an error of the flag package names ("... for flag
// -timeout" or "... for -json").
func flagOf(msg string) string {
	_, name, _ := strings.Cut(msg, " for flag -")
	if name == "" {
		_, name, _ = strings.Cut(msg, " for -")
	}
	return strings.TrimLeft(name, "-")
}

// expected says what kind of value f takes.
func expected(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "not a value it takes"
	}
	switch g.Get().(type) {
	case time.Duration:
		return "not a duration (such as 90s, 2m or 1h30m)"
	case int, int64, uint, uint64:
		return "not a whole number"
	case float64:
		return "not a number"
	case bool:
		return "not true or false"
	}
	return "not a value it takes"
}

func summary(command string) string {
	switch command {
	case "serve":
		return "Runs the service: HTTP, SMTP and NATS (embedded, or --nats-url)."
	case "rebuild":
		return "Replays the event log into a fresh generation of views, and switches to it when complete.\n" +
			"On a single node, the server must be stopped first."
	case "healthcheck":
		return "Exits 0 when the service at --http-addr answers GET /readyz with 200, else 1."
	}
	return ""
}

// placeholder names the value a flag takes in its usage; "" for a boolean.
func placeholder(o option) string {
	switch {
	case o.def == "false":
		return ""
	case o.name == "data-dir":
		return "dir"
	case strings.HasSuffix(o.name, "-addr") || o.name == "nats-listen":
		return "host:port"
	case o.name == "nats-url":
		return "urls"
	case o.name == "sync":
		return "always|duration"
	case strings.HasPrefix(o.name, "tls-") || o.name == "nats-creds" || strings.HasPrefix(o.name, "nats-tls-") ||
		o.name == "https-cert" || o.name == "https-key":
		return "file"
	case strings.HasSuffix(o.name, "-ttl") || o.name == "message-retention":
		return "duration"
	case strings.HasSuffix(o.name, "-bytes") || o.name == "memory-limit":
		return "size"
	case o.name == "domains" || o.name == "catch-all-domains" || o.name == "routes" || o.name == "cors-origins" || o.name == "webhook-retry-schedule":
		return "list"
	}
	if _, err := strconv.Atoi(o.def); err == nil {
		return "n"
	}
	return "value"
}
