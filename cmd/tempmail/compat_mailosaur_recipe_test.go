package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// docs/compatible.md's Mailosaur recipes, run as written: its shell block for a
// laptop, and its GitHub Actions job's steps as GitHub runs them. Each
// starts `tempmail serve` itself on 443, 8080 and 2525, makes its tenant
// and key with the CLI, and runs `npm test`: here testdata's recipe.mjs,
// the SDK configured by the recipe's variables alone, which prints
// "send <address>" where the application under test would send its mail
// (this test sends it) and then the code and link messages.get found.

// mailosaurRecipe is a block of docs/compatible.md between <!-- name:begin --> and
// <!-- name:end -->, without its fence.
func mailosaurRecipe(t *testing.T, name string) string {
	t.Helper()
	readme, err := os.ReadFile("../../docs/compatible.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- "+name+":begin -->\n")
	block, _, ok2 := strings.Cut(block, "<!-- "+name+":end -->")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if !ok || !ok2 || len(lines) < 3 || !strings.HasPrefix(lines[0], "```") || lines[len(lines)-1] != "```" {
		t.Fatalf("docs/compatible.md has no %s block", name)
	}
	return strings.Join(lines[1:len(lines)-1], "\n") + "\n"
}

// recipeWorkdir is the directory a recipe runs in, as a user's project:
// bin/tempmail (this build), the SDK installed (dir's node_modules), and
// a package.json whose test script is recipe.mjs.
func recipeWorkdir(t *testing.T, dir string) string {
	t.Helper()
	for _, addr := range []string{"127.0.0.1:8080", "127.0.0.1:2525"} {
		if ln, err := net.Listen("tcp", addr); err != nil {
			t.Fatalf("the recipe's service needs %s, which is taken: %v", addr, err)
		} else {
			ln.Close()
		}
	}
	work := t.TempDir()
	bin, err := os.ReadFile(binary)
	if err == nil {
		err = os.MkdirAll(filepath.Join(work, "bin"), 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(work, "bin", "tempmail"), bin, 0o755)
	}
	if err == nil {
		err = os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules"))
	}
	var recipe []byte
	if err == nil {
		recipe, err = os.ReadFile("testdata/compat-mailosaur/recipe.mjs")
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(work, "recipe.mjs"), recipe, 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(work, "package.json"),
			[]byte(`{"private": true, "type": "module", "scripts": {"test": "node recipe.mjs"}}`), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return work
}

// runRecipeShell runs script in bash in work with env, in a process group
// of its own that is killed when the test ends (what it left running
// with it: the service). Each "send <address>" line it prints is mail
// this test sends to 127.0.0.1:2525; it returns the other lines.
func runRecipeShell(t *testing.T, work string, env []string, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Dir, cmd.Env = work, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { stopGroup(t, pgid) })
	var said []string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if addr, ok := strings.CutPrefix(lines.Text(), "send "); ok {
			servicetest.Send(t, "127.0.0.1:2525", "shop@example.com", addr, mailosaurTestMail(addr))
			continue
		}
		said = append(said, lines.Text())
	}
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		log, _ := os.ReadFile(filepath.Join(work, "tempmail.log"))
		t.Fatalf("bash %q: %v\nstdout: %s\nstderr: %s\ntempmail.log: %s", args, err, strings.Join(said, "\n"), stderr.Bytes(), log)
	}
	return said
}

// stopGroup ends what a recipe left running in process group pgid (the
// service, or a test it started) and waits until it has, so that its
// files are written before the test's directory is removed. A process
// that has ended may stay a zombie: the machine's init need not reap what
// it inherits.
func stopGroup(t *testing.T, pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	eventually.Nil(t, "what the recipe started to stop", func() error {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return nil
		}
		for _, e := range entries {
			stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			// pid (comm) state ppid pgrp ...: comm may hold spaces.
			i := bytes.LastIndexByte(stat, ')')
			f := strings.Fields(string(stat[i+1:]))
			if i > 0 && len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
				return fmt.Errorf("%s is still running", e.Name())
			}
		}
		return nil
	})
}

// recipeEnv is the environment a recipe starts from: this one, without
// the proxies the SDK would take.
func recipeEnv(path string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(name) {
		case "https_proxy", "http_proxy", "path", "mailosaur_api_key", "mailosaur_base_url", "mailosaur_smtp_host",
			"tempmail_server", "tempmail_api_token", "node_extra_ca_certs":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+path)
}

// checkRecipeFound checks that npm test printed the code and link of the
// mail sent.
func checkRecipeFound(t *testing.T, said []string) {
	t.Helper()
	for _, line := range said {
		if line == "482913 https://shop.example.com/verify?u=7" {
			return
		}
	}
	t.Errorf("npm test did not print the code and link; it said:\n%s", strings.Join(said, "\n"))
}

// mailosaurLaptopRecipe runs the laptop block as a user pastes it.
func mailosaurLaptopRecipe(t *testing.T, dir string) {
	work := recipeWorkdir(t, dir)
	said := runRecipeShell(t, work, recipeEnv(os.Getenv("PATH")), "-c", mailosaurRecipe(t, "mailosaur-laptop"))
	checkRecipeFound(t, said)
}

// mailosaurCIRecipe runs the job's steps as GitHub runs them: each in
// its own `bash -e -o pipefail`, with the job's env and what earlier steps
// wrote to $GITHUB_ENV, tempmail on the PATH, and sudo, which GitHub's
// runners let the job use without a password (this test runs as root, as
// CI does, so sudo here runs the command as it is).
func mailosaurCIRecipe(t *testing.T, dir string) {
	work := recipeWorkdir(t, dir)
	job := mailosaurRecipe(t, "mailosaur-ci")
	steps := runSteps(job)
	if len(steps) != 3 {
		t.Fatalf("%d steps with run in docs/compatible.md's Mailosaur job, want 3:\n%q", len(steps), steps)
	}
	shims := t.TempDir()
	if err := os.WriteFile(filepath.Join(shims, "sudo"), []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runner, githubEnv := filepath.Join(work, "runner-temp"), filepath.Join(work, "github-env")
	if err := os.Mkdir(runner, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(githubEnv, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	jobEnv := recipeEnv(strings.Join([]string{shims, filepath.Join(work, "bin"), os.Getenv("PATH")}, string(os.PathListSeparator)))
	jobEnv = append(jobEnv, "RUNNER_TEMP="+runner, "GITHUB_ENV="+githubEnv)
	jobEnv = append(jobEnv, jobVariables(job)...)
	var said []string
	for _, step := range steps {
		env := slicesClone(jobEnv)
		b, err := os.ReadFile(githubEnv)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line != "" {
				env = append(env, line) // NAME=value, taken literally, as GitHub does
			}
		}
		said = append(said, runRecipeShell(t, work, env, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step)...)
	}
	checkRecipeFound(t, said)
	if env, _ := os.ReadFile(githubEnv); !bytes.Contains(env, []byte("MAILOSAUR_API_KEY=tm_")) ||
		!strings.Contains(strings.Join(said, "\n"), "::add-mask::tm_") {
		t.Errorf("$GITHUB_ENV: %q; the steps said %q", env, said)
	}
}

// jobVariables are the NAME: value lines of a job's env, as NAME=value.
func jobVariables(job string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(job, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "env:":
			in = true
		case in && strings.HasPrefix(line, "      ") && !strings.HasPrefix(trimmed, "#"):
			name, value, ok := strings.Cut(trimmed, ": ")
			if ok {
				out = append(out, name+"="+value)
			}
		default:
			in = false
		}
	}
	return out
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
