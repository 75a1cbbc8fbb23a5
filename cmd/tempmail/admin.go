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
	"time"

	"github.com/google/uuid"

	"tempmail/client"
	"tempmail/config"
)

// The admin's commands (API.md "Tenants and keys"): `tempmail tenant new`,
// `tempmail tenant list`, `tempmail key new` and `tempmail key revoke`, calling the service with
// the operator's API token (--api-token, TEMPMAIL_API_TOKEN) or a key
// with the admin scope (--key, TEMPMAIL_KEY). A new key is printed once,
// by `key new`, and nowhere else.

const (
	tenantNewUsage = "tempmail tenant new NAME [--inboxes N] [--messages-per-day N] [--storage BYTES] [--webhooks N]\n" +
		"                          [--domains NAME,...] [--json] [--server URL] [--api-token T | --key K]"
	tenantListUsage = "tempmail tenant list [--name NAME] [--json] [--server URL] [--api-token T | --key K]"
	tenantUsage     = "usage: " + tenantNewUsage + "\n       " + tenantListUsage + "\n"
	keyNewUsage     = "tempmail key new --tenant NAME|ID --scopes inboxes[,read,webhooks,admin] [--name N] [--expires DURATION|TIME]\n" +
		"                       [--json] [--server URL] [--api-token T | --key K]"
	keyRevokeUsage = "tempmail key revoke ID [--server URL] [--api-token T | --key K]"
	keyUsage       = "usage: " + keyNewUsage + "\n       " + keyRevokeUsage + "\n"
)

// adminFlags are the flags of the admin's commands: where the service is
// and the admin's credential.
type adminFlags struct {
	server, apiToken, key string
	getenv                func(string) string
}

func (f *adminFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	server := getenv("TEMPMAIL_SERVER")
	if server == "" {
		server = defaultServer
	}
	f.getenv = getenv
	fs.StringVar(&f.server, "server", server, "the service's base URL (env TEMPMAIL_SERVER)")
	// Their variables are read after parsing, not shown as defaults: help
	// must not print a secret.
	fs.StringVar(&f.apiToken, "api-token", "", "the service's API token, the admin key (env TEMPMAIL_API_TOKEN)")
	fs.StringVar(&f.key, "key", "", "a key with the admin scope, instead of the API token (env TEMPMAIL_KEY)")
}

// credential is --api-token, else --key, else their variables: a flag
// given says more than the environment a job runs in.
func (f *adminFlags) credential() string {
	for _, v := range []string{f.apiToken, f.key, f.getenv("TEMPMAIL_API_TOKEN"), f.getenv("TEMPMAIL_KEY")} {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// client is a client of the service that calls it as the admin.
func (f *adminFlags) client() (*client.Client, error) {
	c, err := client.New(f.server)
	if err != nil {
		return nil, err
	}
	if c.Key = f.credential(); c.Key == "" {
		return nil, errors.New("--api-token (or TEMPMAIL_API_TOKEN) is required, or --key (or TEMPMAIL_KEY) with a key of the admin scope")
	}
	return c, nil
}

// failure is what the command prints of a client's error.
func (f *adminFlags) failure(err error) string {
	var e *client.Error
	if errors.As(err, &e) && e.Status == http.StatusUnauthorized {
		return "the API token or key was refused: " + client.Printable(err.Error())
	}
	return client.Printable(err.Error())
}

// parseArgs parses args, flags and arguments in any order (`tenant new
// ci --inboxes 10` as well as `tenant new --inboxes 10 ci`), and returns
// the arguments; done and status as parseClientFlags says.
func parseArgs(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (rest []string, status int, done bool) {
	for {
		if status, done := parseFlags(fs, args, stdout, stderr); done {
			return nil, status, true
		}
		if fs.NArg() == 0 {
			return rest, 0, false
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// runTenant runs `tempmail tenant new` and `tempmail tenant list`.
func runTenant(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "new":
		return runTenantNew(args[1:], getenv, stdout, stderr)
	case len(args) > 0 && args[0] == "list":
		return runTenantList(args[1:], getenv, stdout, stderr)
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
	fs.Func("storage", "the most bytes of mail its inboxes may hold, bytes or a size such as 500MiB or 1GiB; 0: unlimited", func(v string) error {
		n, err := config.ParseSize(v)
		q.StorageBytes = n
		return err
	})
	fs.Int64Var(&q.Webhooks, "webhooks", 0, "the most webhooks it may have; 0: unlimited")
	domains := fs.String("domains", "", "its private domains, comma-separated: only its keys make inboxes there\n"+
		"(publish an MX record for each, pointing to this service)")
	asJSON := fs.Bool("json", false, "print the tenant as JSON (id, name, quota, domains, created_at), not only its id")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: "+tenantNewUsage+"\n\n"+
			"Makes a tenant, a team the service serves apart from the others, and prints its id, which\n"+
			"tempmail key new --tenant takes; with --json the service's answer. NAME is 1 to 64 letters, digits,\n"+
			"spaces, '.', '_' and '-'.\n\n")
		fs.PrintDefaults()
	}
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
	name := fs.String("name", "", "only the tenants of this name")
	asJSON := fs.Bool("json", false, "print the tenants as a JSON array, as the service shows them")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: "+tenantListUsage+"\n\n"+
			"Lists the tenants, oldest first: each one's id, name, quota (inboxes, messages a day, bytes stored,\n"+
			"webhooks; 0 is unlimited) and private domains, one a line, separated by tabs.\n\n")
		fs.PrintDefaults()
	}
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

// tenantOf resolves --tenant: an id as it is; a name to the one tenant of
// that name, or an error saying there is none or more than one.
func tenantOf(ctx context.Context, c *client.Client, v string) (string, error) {
	if uuid.Validate(v) == nil {
		return v, nil
	}
	list, err := c.Tenants(ctx, v, 10)
	switch {
	case err != nil:
		return "", err
	case len(list) == 0:
		return "", fmt.Errorf("--tenant %q: no tenant has this name or id (tempmail tenant list shows them)", client.Printable(v))
	case len(list) > 1:
		return "", fmt.Errorf("--tenant %q: %d tenants have this name; give the id of the one you mean (tempmail tenant list --name shows them)",
			client.Printable(v), len(list))
	}
	return list[0].ID, nil
}

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
	tenant := fs.String("tenant", "", "the tenant's name, or its id (tempmail tenant new prints it)")
	scopes := fs.String("scopes", "", "what the key may do, comma-separated: inboxes (make, read and delete the tenant's\n"+
		"inboxes), read (read them only), webhooks (their subscriptions), admin (everything)")
	name := fs.String("name", "key", "a name for the key, to tell it from the tenant's others")
	expires := fs.String("expires", "", "when the key expires: a duration from now (720h) or an RFC 3339 time; empty: never")
	asJSON := fs.Bool("json", false, "print the key as JSON (id, tenant_id, name, scopes, expires_at, key), not only the key")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: "+keyNewUsage+"\n\n"+
			"Makes a key of the tenant and prints it; with --json the service's answer, with the key's id,\n"+
			"which tempmail key revoke takes. This is the only time the key is shown: the service keeps its\n"+
			"hash alone. Give it to the tenant's programs as TEMPMAIL_KEY (or --key).\n\n")
		fs.PrintDefaults()
	}
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
		return fail("--scopes is required: one or more of inboxes, read, webhooks and admin, comma-separated")
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
	id, err := tenantOf(ctx, c, *tenant)
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
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: "+keyRevokeUsage+"\n\n"+
			"Revokes the key whose id is ID (tempmail key new --json prints it): once this returns, every\n"+
			"node of the service refuses the key.\n\n")
		fs.PrintDefaults()
	}
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
		fmt.Fprintf(stderr, "tempmail key revoke: %s\n", af.failure(err))
		return 2
	}
	fmt.Fprintln(stdout, "revoked the key: the service refuses it from now on")
	return 0
}
