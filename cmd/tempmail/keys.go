package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"tempmail/client"
)

// runKey runs `tempmail key new` and `tempmail key revoke`.
func runKey(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "new":
		return runKeyNew(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "revoke":
		return runKeyRevoke(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprint(stdout, keyUsage)
		return 0
	}
	fmt.Fprint(stderr, keyUsage)
	return 2
}

func runKeyNew(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail key new", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	tenant := fs.String("tenant", "", "the tenant, by its `name|id` (tempmail tenant new prints the id)")
	scopes := fs.String("scopes", "", "what the key may do, a comma-separated `list`: inboxes (make, read and delete the tenant's\n"+
		"inboxes), read (read them only), webhooks (their subscriptions), admin (everything), faults (SMTP fault rules\n"+
		"on the tenant's mail)")
	name := fs.String("name", "key", "a `name` for the key, to tell it from the tenant's others")
	expires := fs.String("expires", "", "when the key expires, a `duration|time`: a duration from now (720h) or an RFC 3339 time; empty: never")
	asJSON := fs.Bool("json", false, "print the key as JSON (id, tenant_id, name, scopes, expires_at, key), not only the key")
	setUsage(fs, "usage: "+keyNewUsage+"\n\n"+
		"Makes a key of the tenant and prints it; with --json the service's answer, with the key's id,\n"+
		"which tempmail key revoke takes. This is the only time the key is shown: the service keeps its\n"+
		"hash alone. Give it to the tenant's programs as TEMPMAIL_KEY (or --key).\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tempmail key new: "+format+"\n", a...)
		return 2
	}
	var spec client.KeySpec
	spec.Name = *name
	spec.Scopes = splitList(*scopes)
	var err error
	switch {
	case *tenant == "":
		return fail("--tenant is required: the name or id of the tenant the key is for (tempmail tenant new prints its id)")
	case len(*tenant) > 64 && uuid.Validate(*tenant) != nil:
		return fail("--tenant %q is neither a tenant's name (at most 64 characters) nor its id", client.Printable((*tenant)[:64]+"..."))
	case len(spec.Scopes) == 0:
		return fail("--scopes is required: one or more of inboxes, read, webhooks, admin and faults, comma-separated")
	}
	if spec.ExpiresAt, err = parseExpires(*expires, time.Now()); err != nil {
		return fail("%v", err)
	}
	c, err := af.client()
	if err != nil {
		return fail("%v", err)
	}
	ctx, stop := signalContext()
	defer stop()
	id, err := tenantOf(ctx, c, *tenant, "--tenant ")
	if err != nil {
		return fail("%s", af.failure(err))
	}
	k, err := c.CreateKey(ctx, id, spec)
	if err != nil {
		return fail("%s", af.failure(err))
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(k.JSON))
	} else {
		fmt.Fprintln(stdout, client.Printable(k.Key))
	}
	return 0
}

// parseExpires reads --expires: a duration from now, or an RFC 3339 time;
// "": no expiry.
func parseExpires(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("--expires %s is not in the future", s)
		}
		return now.Add(d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--expires %q is neither a duration (such as 720h) nor an RFC 3339 time (such as 2027-01-01T00:00:00Z)",
		client.Printable(s))
}

func runKeyRevoke(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail key revoke", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	setUsage(fs, "usage: "+keyRevokeUsage+"\n\n"+
		"Revokes the key whose id is ID (tempmail key new --json prints it): once this returns, every\n"+
		"node of the service refuses the key.\n\n")
	rest, status, done := parseArgs(fs, args, stdout, stderr)
	if done {
		return status
	}
	if len(rest) != 1 || uuid.Validate(rest[0]) != nil {
		fmt.Fprintln(stderr, "tempmail key revoke: give the key's ID, one argument, such as 78efd21e-9b23-4437-b0cc-283b6694e950")
		return 2
	}
	c, err := af.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail key revoke: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	if err := c.RevokeKey(ctx, rest[0]); err != nil {
		msg := af.failure(err)
		if e := (*client.Error)(nil); errors.As(err, &e) && e.Status == http.StatusNotFound {
			// The service's 404 for an id of no key is its 404 for a path
			// it does not serve: both may be.
			msg = client.Printable(e.Method + " " + e.URL + ": " + e.Error() + "; no key has this id (revoked already, or never made), or " + serverHint)
		}
		fmt.Fprintf(stderr, "tempmail key revoke: %s\n", msg)
		return 2
	}
	fmt.Fprintln(stdout, "revoked the key: the service refuses it from now on")
	return 0
}
