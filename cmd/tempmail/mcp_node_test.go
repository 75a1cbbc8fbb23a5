package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// The MCP server as the JavaScript clients see it: the official
// TypeScript SDK's client and the MCP Inspector's CLI, from the npm
// registry at the exact versions of testdata/mcpnode/package.json. Issue
// 30: the Inspector's CLI turned "30" into a number only for a property
// typed exactly "integer", so every call that set timeout_seconds, typed
// ["null","integer"], failed.

// nodeClients installs testdata/mcpnode's packages (npmPackages) and
// returns the directory, with client.mjs beside them.
func nodeClients(t *testing.T) string {
	t.Helper()
	return npmPackages(t, "mcpnode", "the MCP server was not checked with the TypeScript SDK's client nor with the MCP Inspector's CLI",
		"client.mjs")
}

// runNode runs a command of the installed clients and returns its stdout;
// it fails the test unless the command exits 0.
func runNode(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	if stderr.Len() > 0 {
		t.Errorf("%s %s said on stderr: %s", name, strings.Join(args, " "), stderr.Bytes())
	}
	return stdout.Bytes()
}

// TestMCPFromNodeClients: the TypeScript SDK's client, over HTTP and over
// stdio, sees tools whose schemas have plain types (and checks each
// result against them), the tools capability alone, text content without
// HTML escapes, errors in words and a delete_inbox that can be called
// twice; the Inspector's CLI finds nothing to report in the schemas, and
// its calls that set timeout_seconds work, over both transports, and with
// the argument conversion of its 0.14 line too.
func TestMCPFromNodeClients(t *testing.T) {
	t.Parallel()
	dir := nodeClients(t)
	svc, base := startService(t, t.TempDir())
	const link = "https://shop.example/verify?u=7&t=zz"
	var tokens []string
	for range 5 {
		in := createTokenInbox(t, base)
		servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, "From: Shop <shop@example.com>\r\nSubject: Your code\r\nContent-Type: text/plain\r\n\r\n"+
			"Your code is 482913. Verify: "+link+"\r\n")
		tokens = append(tokens, in.Token)
	}

	var report map[string]struct {
		Capabilities   map[string]any
		SchemaProblems []string
		Tools          []string
		Created        string
		Link           string
		LinkText       string
		Code           string
		BadTimeout     string
		Deletes        []any
	}
	out := runNode(t, dir, nil, "node", "client.mjs", base, binary, tokens[0], tokens[1])
	if err := json.Unmarshal(out, &report); err != nil || len(report) != 2 {
		t.Fatalf("the TypeScript client's report: %v\n%s", err, out)
	}
	wantDeletes := []any{map[string]any{"deleted": true, "already_gone": false}, map[string]any{"deleted": true, "already_gone": true}}
	for transport, r := range report {
		if !reflect.DeepEqual(r.Capabilities, map[string]any{"tools": map[string]any{}}) {
			t.Errorf("%s: capabilities %v, want tools alone", transport, r.Capabilities)
		}
		if len(r.SchemaProblems) > 0 || len(r.Tools) != 11 {
			t.Errorf("%s: tools %v, types that are not one plain type: %v", transport, r.Tools, r.SchemaProblems)
		}
		if !strings.HasSuffix(r.Created, "@tempmail.test") || r.Code != "482913" || r.Link != link ||
			!strings.Contains(r.LinkText, `"link":"`+link+`"`) {
			t.Errorf("%s: create_inbox %q, get_code %q, get_link %q with text %s", transport, r.Created, r.Code, r.Link, r.LinkText)
		}
		if r.BadTimeout != "timeout_seconds must be a whole number from 0 to 60, not 120" {
			t.Errorf("%s: timeout_seconds 120: %q", transport, r.BadTimeout)
		}
		if !reflect.DeepEqual(r.Deletes, wantDeletes) {
			t.Errorf("%s: delete_inbox twice: %v", transport, r.Deletes)
		}
	}

	// The Inspector's CLI: --strict reports a schema that is less portable
	// (a type array among them) on stderr, which runNode fails on.
	inspector := filepath.Join("node_modules", ".bin", "mcp-inspector")
	var list struct{ Tools []any }
	if out := runNode(t, dir, nil, inspector, "--cli", base+"/mcp", "--method", "tools/list", "--strict"); json.Unmarshal(out, &list) != nil || len(list.Tools) != 11 {
		t.Errorf("inspector tools/list: %s", out)
	}
	type called struct {
		StructuredContent struct{ Code, Link string }
	}
	for _, c := range []struct {
		name string
		env  []string
		cmd  string
		args []string
		want called
	}{
		{"inspector over HTTP", nil, inspector, []string{"--cli", base + "/mcp", "--method", "tools/call", "--tool-name", "get_code",
			"--tool-arg", "token=" + tokens[2], "timeout_seconds=10"}, called{struct{ Code, Link string }{Code: "482913"}}},
		{"inspector over stdio", nil, inspector, []string{"--cli", "-e", "TEMPMAIL_SERVER=" + base, binary, "mcp", "--method", "tools/call",
			"--tool-name", "get_link", "--tool-arg", "token=" + tokens[3], "timeout_seconds=10"}, called{struct{ Code, Link string }{Link: link}}},
		// 0.14 converts an argument by its property's type alone.
		{"inspector 0.14 over stdio", []string{"TEMPMAIL_SERVER=" + base}, "node", []string{filepath.Join("node_modules", "@modelcontextprotocol",
			"inspector-cli", "build", "index.js"), binary, "mcp", "--method", "tools/call", "--tool-name", "get_code",
			"--tool-arg", "token=" + tokens[4], "--tool-arg", "timeout_seconds=10"}, called{struct{ Code, Link string }{Code: "482913"}}},
	} {
		var got called
		if out := runNode(t, dir, c.env, c.cmd, c.args...); json.Unmarshal(out, &got) != nil || got != c.want {
			t.Errorf("%s: %s, want %+v", c.name, out, c.want)
		}
	}
}
