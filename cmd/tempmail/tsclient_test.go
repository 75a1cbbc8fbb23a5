package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// A tenant's program in TypeScript, on the client that openapi-typescript
// generates from the service's own /openapi.json and openapi-fetch, at the
// exact versions of testdata/tsclient/package.json: issue 32's "a generated
// TypeScript client creates a tenant, a key, an inbox, and reads mail with
// that key". tsc --strict checks that every body the program sends and
// every field it reads is one the document describes. The packages are
// installed once (tsClientPackages), and what tsc made of one document is
// kept (tsClientProgram): a warm run starts the service and runs node.

// tsClientPackages installs testdata/tsclient's packages once per content
// of its package.json, in the user's cache directory, as nodeClients does
// testdata/mcpnode's, and returns the directory; it is skipped, loudly,
// without node and npm or with TEMPMAIL_NODE_CLIENTS=off, and fails instead
// with TEMPMAIL_NODE_CLIENTS=required.
func tsClientPackages(t *testing.T) string {
	t.Helper()
	skip := func(why string) {
		msg := fmt.Sprintf("%s: no TypeScript client was generated from the OpenAPI document and run", why)
		if os.Getenv("TEMPMAIL_NODE_CLIENTS") == "required" {
			t.Fatal(msg + " (TEMPMAIL_NODE_CLIENTS=required)")
		}
		fmt.Fprintf(os.Stderr, "\n*** SKIPPED %s: %s ***\n\n", t.Name(), msg)
		t.Skip(msg)
	}
	if os.Getenv("TEMPMAIL_NODE_CLIENTS") == "off" {
		skip("TEMPMAIL_NODE_CLIENTS=off")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			skip(tool + " is not installed")
		}
	}
	pkg, err := os.ReadFile(filepath.Join("testdata", "tsclient", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pkg)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "tempmail-tests", "tsclient-"+hex.EncodeToString(sum[:])[:16])
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		return dir
	}
	// Installed beside it and renamed into place whole: a run that stops
	// half way, or one that runs at the same time, leaves no half install.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "installing-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund",
		"--no-package-lock", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install (the npm registry must be reachable; TEMPMAIL_NODE_CLIENTS=off skips this test): %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "node_modules")); serr != nil {
			t.Fatal(err)
		} // else another run put it there first
	}
	return dir
}

// tsClientProgram generates the client from what the service at base
// serves at /openapi.json, type-checks and compiles the program on it,
// and returns the directory of client.mjs, within pkgs so that node finds
// the packages. What tsc made of the same document, sources and packages
// before is kept beside the packages and used again: its work (several
// seconds, far more on a busy machine) would come to the same.
func tsClientProgram(t *testing.T, pkgs, base string) string {
	t.Helper()
	status, doc := call(t, "GET", base+"/openapi.json", "")
	if status != 200 {
		t.Fatalf("GET /openapi.json: %d", status)
	}
	h := sha256.New()
	h.Write(doc)
	sources := map[string][]byte{}
	for _, name := range []string{"package.json", "tsconfig.json", "client.mts"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tsclient", name))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "\x00%s\x00%d\x00", name, len(b))
		h.Write(b)
		sources[name] = b
	}
	checked := filepath.Join(pkgs, "checked-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(checked, "client.mjs")); err == nil {
		return checked
	}

	// The program's directory, within pkgs: its sources, then the
	// generated client and what tsc makes; renamed into place whole once
	// tsc has passed it.
	work, err := os.MkdirTemp(pkgs, "checking-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	for name, b := range sources {
		if err := os.WriteFile(filepath.Join(work, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := func(name string) string { return filepath.Join("..", "node_modules", ".bin", name) }
	// The generator reads the document over HTTP, as a user would point it
	// at a running service; it prints its banner on stdout, and a problem
	// it has with the document on stderr, which fails the test.
	runNode(t, work, nil, bin("openapi-typescript"), base+"/openapi.json", "--output", "schema.ts")
	if t.Failed() {
		t.FailNow()
	}
	// tsc says what it finds wrong on stdout; runNode shows it.
	runNode(t, work, nil, bin("tsc"), "--project", ".")
	if t.Failed() {
		t.FailNow()
	}
	// What is kept is small: the program compiled (its import of the
	// generated types is gone from it).
	for _, name := range []string{"schema.ts", "schema.js"} {
		if err := os.Remove(filepath.Join(work, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(work, checked); err != nil {
		if _, serr := os.Stat(filepath.Join(checked, "client.mjs")); serr != nil {
			t.Fatal(err)
		} // else another run put it there first
	}
	return checked
}

// castToAny finds what would let the program past tsc without the
// document's types: a cast, or a value typed any.
var castToAny = regexp.MustCompile(`\bas\s+(any|unknown)\b|<any>|:\s*any\b|@ts-(ignore|expect-error|nocheck)`)

// TestTypeScriptClient: against a service run as one that serves tenants
// would be (an API token, --require-token), the client is generated from
// what it serves at /openapi.json, and the program (testdata/tsclient/client.mts)
// passes tsc --strict and then, run by node, makes a tenant and a key with
// the API token, an inbox with the key, and reads the one message the
// test mails there, subject and body, with the key; the same read without
// a key or with a wrong one is 401, with another tenant's key 404.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	pkgs := tsClientPackages(t)
	src, err := os.ReadFile(filepath.Join("testdata", "tsclient", "client.mts"))
	if err != nil {
		t.Fatal(err)
	}
	if m := castToAny.Find(src); m != nil {
		t.Fatalf("client.mts has %q: the program must pass tsc on the generated types alone", m)
	}
	cfg := testConfig(t.TempDir())
	cfg.APIToken = adminToken
	cfg.RequireToken = true
	svc, base := startServiceWith(t, cfg)

	work := tsClientProgram(t, pkgs, base)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", base, adminToken)
	cmd.Dir = work
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	out := bufio.NewReader(stdout)
	var created struct{ Address, Token string }
	line, err := out.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &created)
	}
	if err != nil || !strings.HasSuffix(created.Address, "@tempmail.test") {
		t.Fatalf("the program's first line %q: %v\nstderr: %s", line, err, stderr.String())
	}
	const subject, body = "Your code", "Your code is 482913."
	if err := servicetest.Mail(svc.SMTPAddr(), created.Address, subject, body); err != nil {
		t.Fatal(err)
	}
	// The SMTP 250 comes a moment before the views show the message (the
	// inbound webhook's 201 waits for them; SMTP's does not): the inbox's
	// long-poll, on its token, answers once they do.
	if status, b := call(t, "GET", base+"/inboxes/"+created.Token+"/latest/?wait=30", ""); status != 200 {
		t.Fatalf("latest/?wait=30 after the mail: %d %s", status, b)
	}
	if _, err := io.WriteString(stdin, "sent\n"); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(out)
	if werr := cmd.Wait(); err != nil || werr != nil || stderr.Len() > 0 {
		t.Fatalf("the program: %v, %v\nstdout: %s\nstderr: %s", err, werr, rest, stderr.String())
	}

	var report struct {
		Tenant struct{ ID, Name string }
		Key    struct {
			ID       string
			TenantID string `json:"tenant_id"`
			Scopes   []string
		}
		Inbox  struct{ ID, Email string }
		Emails []struct {
			Subject  string
			BodyText string `json:"body_text"`
			From     string
			InboxID  string `json:"inbox_id"`
		}
		Refused map[string]int
	}
	if err := json.Unmarshal(rest, &report); err != nil {
		t.Fatalf("the program's report: %v\n%s", err, rest)
	}
	if report.Tenant.Name != "ts client" || len(report.Tenant.ID) != 36 || report.Key.TenantID != report.Tenant.ID ||
		!reflect.DeepEqual(report.Key.Scopes, []string{"inboxes"}) || report.Inbox.Email != created.Address {
		t.Errorf("tenant %+v, key %+v, inbox %+v (printed %s)", report.Tenant, report.Key, report.Inbox, created.Address)
	}
	if len(report.Emails) != 1 || report.Emails[0].Subject != subject || strings.TrimSpace(report.Emails[0].BodyText) != body ||
		report.Emails[0].From != "s@example.com" || report.Emails[0].InboxID != report.Inbox.ID {
		t.Errorf("read with the key: %+v", report.Emails)
	}
	if want := map[string]int{"none": 401, "wrong": 401, "other tenant": 404}; !reflect.DeepEqual(report.Refused, want) {
		t.Errorf("the same read without the key: %v, want %v", report.Refused, want)
	}
}
