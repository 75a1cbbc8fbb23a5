package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"tempmail/client"
	"tempmail/config"
)

// runTenant runs `tempmail tenant new`, `tenant list` and `tenant delete`.
func runTenant(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "new":
		return runTenantNew(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "list":
		return runTenantList(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "delete":
		return runTenantDelete(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprint(stdout, tenantUsage)
		return 0
	}
	fmt.Fprint(stderr, tenantUsage)
	return 2
}

func runTenantNew(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail tenant new", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	var q client.Quota
	fs.Int64Var(&q.Inboxes, "inboxes", 0, "the most live inboxes it may have; 0: unlimited (at most 5000 in any case)")
	fs.Int64Var(&q.MessagesPerDay, "messages-per-day", 0, "the most messages its inboxes may receive a day; 0: unlimited")
	fs.Func("storage", "the most bytes of mail its inboxes may hold, a `size`: bytes, or such as 500MiB or 1GiB; 0: unlimited", func(v string) error {
		n, err := config.ParseSize(v)
		q.StorageBytes = n
		return err
	})
	fs.Int64Var(&q.Webhooks, "webhooks", 0, "the most webhooks it may have; 0: unlimited")
	domains := fs.String("domains", "", "its private domains, a comma-separated `list`: only its keys make inboxes there\n"+
		"(publish an MX record for each, pointing to this service)")
	asJSON := fs.Bool("json", false, "print the tenant as JSON (id, name, quota, domains, created_at), not only its id")
	setUsage(fs, "usage: "+tenantNewUsage+"\n\n"+
		"Makes a tenant, a team the service serves apart from the others, and prints its id, which\n"+
		"tempmail key new --tenant takes; with --json the service's answer. NAME is 1 to 64 letters, digits,\n"+
		"spaces, '.', '_' and '-'.\n\n")
	rest, status, done := parseArgs(fs, args, stdout, stderr)
	if done {
		return status
	}
	if len(rest) != 1 {
		fmt.Fprintf(stderr, "tempmail tenant new: give the tenant's NAME, one argument (got %d)\n", len(rest))
		return 2
	}
	c, err := af.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail tenant new: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	t, err := c.CreateTenant(ctx, rest[0], q, splitList(*domains)...)
	if err != nil {
		fmt.Fprintf(stderr, "tempmail tenant new: %s\n", af.failure(err))
		return 2
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", client.PrintableJSON(t.JSON))
	} else {
		fmt.Fprintln(stdout, client.Printable(t.ID))
	}
	return 0
}

// splitList reads a comma-separated flag: its items, trimmed, the empty
// ones left out.
func splitList(v string) []string {
	var out []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// maxListedTenants bounds what tenant list prints; --name narrows it.
const maxListedTenants = 10000

func runTenantList(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail tenant list", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	name := fs.String("name", "", "only the tenants of this `name`")
	asJSON := fs.Bool("json", false, "print the tenants as a JSON array, as the service shows them")
	setUsage(fs, "usage: "+tenantListUsage+"\n\n"+
		"Lists the tenants, oldest first: each one's id, name, quota (inboxes, messages a day, bytes stored,\n"+
		"webhooks; 0 is unlimited) and private domains, one a line, separated by tabs.\n\n")
	rest, status, done := parseArgs(fs, args, stdout, stderr)
	if done {
		return status
	}
	if len(rest) != 0 {
		fmt.Fprintf(stderr, "tempmail tenant list: takes no arguments (got %q); --name NAME lists those of a name\n", client.Printable(rest[0]))
		return 2
	}
	c, err := af.client()
	if err != nil {
		fmt.Fprintf(stderr, "tempmail tenant list: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	list, err := c.Tenants(ctx, *name, maxListedTenants)
	if err != nil {
		fmt.Fprintf(stderr, "tempmail tenant list: %s\n", af.failure(err))
		return 2
	}
	if *asJSON {
		out, _ := json.Marshal(list)
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	for _, t := range list {
		q := t.Quota
		fmt.Fprintf(stdout, "%s\t%s\tinboxes=%d,messages_per_day=%d,storage_bytes=%d,webhooks=%d\t%s\n", client.Printable(t.ID),
			client.Printable(t.Name), q.Inboxes, q.MessagesPerDay, q.StorageBytes, q.Webhooks, client.Printable(strings.Join(t.Domains, ",")))
	}
	return 0
}

// tenantOf resolves a tenant given by name or id (named as it was given:
// flag is "--tenant " for key new's flag, "" for an argument): an id as it
// is; a name to the one tenant of that name, or an error saying there is
// none or more than one.
func tenantOf(ctx context.Context, c *client.Client, v, flag string) (string, error) {
	if uuid.Validate(v) == nil {
		return v, nil
	}
	list, err := c.Tenants(ctx, v, 10)
	switch {
	case err != nil:
		return "", err
	case len(list) == 0:
		return "", fmt.Errorf("%s%q: no tenant has this name or id (tempmail tenant list shows them)", flag, client.Printable(v))
	case len(list) > 1:
		return "", fmt.Errorf("%s%q: %d tenants have this name; give the id of the one you mean (tempmail tenant list --name shows them)",
			flag, client.Printable(v), len(list))
	}
	return list[0].ID, nil
}

func runTenantDelete(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail tenant delete", flag.ContinueOnError)
	var af adminFlags
	af.register(fs, getenv)
	setUsage(fs, "usage: "+tenantDeleteUsage+"\n\n"+
		"Deletes the tenant of that name (the only one of it) or id: once this returns, every node refuses\n"+
		"its keys, its inboxes are gone with their mail, and its private domains take no more mail. Run\n"+
		"again after a failure, it finishes what the first run left.\n\n")
	rest, status, done := parseArgs(fs, args, stdout, stderr)
	if done {
		return status
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tempmail tenant delete: "+format+"\n", a...)
		return 2
	}
	switch {
	case len(rest) != 1:
		return fail("give the tenant's name or id, one argument (tempmail tenant list shows them)")
	case len(rest[0]) > 64 && uuid.Validate(rest[0]) != nil:
		return fail("%q is neither a tenant's name (at most 64 characters) nor its id", client.Printable(rest[0][:64]+"..."))
	}
	c, err := af.client()
	if err != nil {
		return fail("%v", err)
	}
	ctx, stop := signalContext()
	defer stop()
	id, err := tenantOf(ctx, c, rest[0], "")
	if err != nil {
		return fail("%s", af.failure(err))
	}
	if err := c.DeleteTenant(ctx, id); err != nil {
		var e *client.Error
		if errors.As(err, &e) && e.Status == http.StatusNotFound {
			return fail("no tenant has the id %s: deleted already, or never made (tempmail tenant list shows them)", client.Printable(id))
		}
		return fail("%s", af.failure(err))
	}
	fmt.Fprintf(stdout, "deleted the tenant %s: its keys are refused, its inboxes gone with their mail, its domains inactive\n", client.Printable(id))
	return 0
}
