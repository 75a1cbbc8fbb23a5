package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tempmail/broker/natstest"
)

func noEnv(string) string { return "" }

// TestHelpGoesToStdout: help is asked for, so it goes to stdout with exit
// status 0 (tempmail serve -h | less shows it), each command with its own
// flags written as users type them.
func TestHelpGoesToStdout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args       []string
		has, lacks []string
	}{
		{[]string{"serve", "-h"}, []string{"usage: tempmail serve [flags]", "--tls-cert file", "--max-message-bytes size"}, nil},
		{[]string{"serve", "--help"}, []string{"--data-dir dir"}, nil},
		{[]string{"rebuild", "-h"}, []string{"usage: tempmail rebuild [flags]", "--data-dir dir", "--nats-url urls"}, []string{"--http-addr", "--tls-cert"}},
		{[]string{"healthcheck", "-h"}, []string{"--http-addr host:port"}, []string{"--data-dir"}},
		{[]string{"version", "-h"}, []string{"usage: tempmail version"}, []string{"--"}},
		{[]string{"help"}, []string{"usage: tempmail <command>", "healthcheck"}, nil},
		{[]string{"--help"}, []string{"usage: tempmail <command>"}, nil},
		{[]string{"help", "rebuild"}, []string{"usage: tempmail rebuild [flags]"}, []string{"--tls-cert"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			if code := run(c.args, noEnv, &out, &errOut); code != 0 || errOut.Len() != 0 {
				t.Fatalf("exit %d, stderr %q", code, errOut.String())
			}
			for _, want := range c.has {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, out.String())
				}
			}
			for _, not := range c.lacks {
				if strings.Contains(out.String(), not) {
					t.Errorf("stdout has %q:\n%s", not, out.String())
				}
			}
			if regexp.MustCompile(`(?m)^\s+-[a-z]`).MatchString(out.String()) {
				t.Errorf("a flag shown with one dash:\n%s", out.String())
			}
		})
	}
}

// TestInvalidValuesExitTwoBeforeAnySideEffect: every value that cannot be
// used, files the flags name included, stops the command with exit status
// 2 and one line on stderr, before the data directory is made or an API
// token generated.
func TestInvalidValuesExitTwoBeforeAnySideEffect(t *testing.T) {
	t.Parallel()
	files := t.TempDir()
	certA, keyA := natstest.WriteCert(t, t.TempDir())
	_, keyB := natstest.WriteCert(t, t.TempDir())
	notPEM := filepath.Join(files, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(files, "a-file")
	if err := os.WriteFile(aFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing certificate", []string{"serve", "--tls-cert", filepath.Join(files, "nope.pem"), "--tls-key", keyA}, "invalid --tls-cert/--tls-key: open "},
		{"key of another certificate", []string{"serve", "--tls-cert", certA, "--tls-key", keyB}, "invalid --tls-cert/--tls-key: tls: private key does not match public key"},
		{"not a certificate", []string{"serve", "--tls-cert", notPEM, "--tls-key", keyA}, "invalid --tls-cert/--tls-key"},
		{"certificate alone", []string{"serve", "--tls-cert", certA}, "give both files, or neither"},
		{"size in lower case", []string{"serve", "--max-message-bytes", "25mb"}, `invalid --max-message-bytes "25mb"`},
		{"unknown flag", []string{"serve", "--no-such-flag"}, "unknown flag --no-such-flag"},
		{"serve's flag to rebuild", []string{"rebuild", "--tls-cert", certA}, "unknown flag --tls-cert; run 'tempmail rebuild --help' for usage"},
		{"stray argument", []string{"serve", "now"}, `unexpected argument "now"`},
		{"CA that is no certificate", []string{"serve", "--nats-url", "nats://127.0.0.1:1", "--nats-tls-ca", notPEM}, "invalid --nats-tls-ca " + notPEM + ": it holds no PEM certificate"},
		{"missing credentials", []string{"rebuild", "--nats-url", "nats://127.0.0.1:1", "--nats-creds", filepath.Join(files, "x.creds")}, "invalid --nats-creds: open "},
		{"route listener on port 0", []string{"serve", "--cluster-name", "c", "--cluster-addr", "127.0.0.1:0", "--routes", "nats://127.0.0.1:6222", "--nats-listen", "127.0.0.1:4222"}, "a port from 1 to 65535"},
		{"data directory that is a file", []string{"rebuild", "--data-dir", aFile}, "invalid --data-dir " + aFile + ": it is a file, not a directory"},
		{"version with a flag", []string{"version", "--data-dir", "x"}, "version takes no flags"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "data")
			args := c.args
			if !strings.Contains(strings.Join(args, " "), "--data-dir") && args[0] != "version" {
				args = append(args, "--data-dir", dir)
			}
			var out, errOut bytes.Buffer
			code := run(args, noEnv, &out, &errOut)
			if code != 2 || !strings.HasPrefix(errOut.String(), "tempmail: ") || !strings.Contains(errOut.String(), c.want) ||
				strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, errOut.String(), c.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the data directory was made (%v)", err)
			}
		})
	}
	t.Run("no command", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		if code := run(nil, noEnv, &out, &errOut); code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "usage: tempmail") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
		}
	})
}
