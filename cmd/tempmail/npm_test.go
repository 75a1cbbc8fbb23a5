package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The clients others wrote, which the tests run as users would (the MCP
// SDK's, a client generated from the OpenAPI document, the compatible
// families' services' SDKs), come from npm at the exact versions of their
// testdata directories, installed once per content.

// npmPackages installs testdata/<name>'s package.json once per content of
// its files, in the user's cache directory (a later run uses it as it
// is), and returns the directory (with the files beside node_modules). Without node and npm, or with TEMPMAIL_NODE_CLIENTS=off,
// the test is skipped, loudly; with TEMPMAIL_NODE_CLIENTS=required it
// fails instead. what says what goes unchecked.
func npmPackages(t *testing.T, name, what string, files ...string) string {
	t.Helper()
	skip := func(why string) {
		msg := fmt.Sprintf("%s: %s", why, what)
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
	h := sha256.New()
	contents := map[string][]byte{}
	for _, f := range append([]string{"package.json"}, files...) {
		b, err := os.ReadFile(filepath.Join("testdata", name, f))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
		contents[f] = b
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "tempmail-tests", name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
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
	for f, b := range contents {
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
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

// nodeProcess is a node program a test talks to, as a user's test file
// or one of testdata's clients: what it prints is read line by line from
// Out, Stdin reaches it, and what it said on stderr is in Stderr once Wait
// has returned.
type nodeProcess struct {
	cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Out    *bufio.Reader
	Stderr bytes.Buffer
}

// startNode starts `node args...` in dir, with env (NAME=value) beside
// the test's own environment; it is killed when ctx ends.
func startNode(ctx context.Context, t *testing.T, dir string, env []string, args ...string) *nodeProcess {
	t.Helper()
	p := &nodeProcess{cmd: exec.CommandContext(ctx, "node", args...)}
	p.cmd.Dir = dir
	if len(env) > 0 {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stderr = &p.Stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.Stdin, p.Out = stdin, bufio.NewReader(stdout)
	return p
}

// Wait waits for the program to end, as exec.Cmd.Wait does.
func (p *nodeProcess) Wait() error { return p.cmd.Wait() }
