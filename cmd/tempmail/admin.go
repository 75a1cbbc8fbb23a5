package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"tempmail/client"
)

// The admin's commands (docs/tenants.md "Tenants and keys"): `tempmail tenant new`,
// `tenant list` and `tenant delete` (tenants.go), `tempmail key new` and
// `key revoke` (keys.go), calling the service with
// the operator's API token (--api-token, TEMPMAIL_API_TOKEN) or a key
// with the admin scope (--key, TEMPMAIL_KEY). A new key is printed once,
// by `key new`, and nowhere else.

const (
	tenantNewUsage = "tempmail tenant new NAME [--inboxes N] [--messages-per-day N] [--storage BYTES] [--webhooks N]\n" +
		"                          [--domains NAME,...] [--json] [--server URL] [--api-token T | --key K]"
	tenantListUsage   = "tempmail tenant list [--name NAME] [--json] [--server URL] [--api-token T | --key K]"
	tenantDeleteUsage = "tempmail tenant delete NAME|ID [--server URL] [--api-token T | --key K]"
	tenantUsage       = "usage: " + tenantNewUsage + "\n       " + tenantListUsage + "\n       " + tenantDeleteUsage + "\n"
	keyNewUsage       = "tempmail key new --tenant NAME|ID --scopes inboxes[,read,webhooks,admin,faults] [--name N] [--expires DURATION|TIME]\n" +
		"                       [--json] [--server URL] [--api-token T | --key K]"
	keyRevokeUsage = "tempmail key revoke ID [--server URL] [--api-token T | --key K]"
	keyUsage       = "usage: " + keyNewUsage + "\n       " + keyRevokeUsage + "\n"
)

// adminFlags are the flags of the admin's commands: where the service is
// and the admin's credential.
type adminFlags struct {
	server        serverFlag
	apiToken, key string
	getenv        func(string) string
	base          string // the service's base URL, once client made a client of it
}

func (f *adminFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	f.getenv = getenv
	f.server.register(fs)
	// Their variables are read after parsing, not shown as defaults: help
	// must not print a secret.
	fs.StringVar(&f.apiToken, "api-token", "", "the service's API `token`, the admin key")
	fs.StringVar(&f.key, "key", "", "a `key` with the admin scope, instead of the API token")
}

// credential is --api-token, else --key, else their variables (a flag
// given says more than the environment a job runs in), and which of them
// it is.
func (f *adminFlags) credential() (value, from string) {
	for _, v := range [...]struct{ value, from string }{
		{f.apiToken, "--api-token"}, {f.key, "--key"},
		{f.getenv("TEMPMAIL_API_TOKEN"), "TEMPMAIL_API_TOKEN"}, {f.getenv("TEMPMAIL_KEY"), "TEMPMAIL_KEY"},
	} {
		if v.value = strings.TrimSpace(v.value); v.value != "" {
			return v.value, v.from
		}
	}
	return "", ""
}

// client is a client of the service that calls it as the admin.
func (f *adminFlags) client() (*client.Client, error) {
	c, err := client.New(f.server.value(f.getenv))
	if err != nil {
		return nil, err
	}
	f.base = c.Server
	if c.Key, _ = f.credential(); c.Key == "" {
		return nil, errors.New("--api-token (or TEMPMAIL_API_TOKEN) is required, or --key (or TEMPMAIL_KEY) with a key of the admin scope")
	}
	return c, nil
}

// failure is what the command prints of a client's error (describe), an
// answer that refuses the request naming the credential sent.
func (f *adminFlags) failure(err error) string {
	_, from := f.credential()
	what := "the API token"
	if from == "--key" || from == "TEMPMAIL_KEY" {
		what = "the key"
	}
	return describe(err, f.base, "check "+what+" in "+from)
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
