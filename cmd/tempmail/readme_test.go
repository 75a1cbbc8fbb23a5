package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's GitHub Actions job, its steps run as GitHub runs them (each
// in its own `bash -e -o pipefail`, with the job's environment and what
// earlier steps wrote to $GITHUB_ENV), against a running service:
// ./sign-up.sh and ./resend-code.sh mail a code as the system under test
// would, ./confirm.sh notes the code it is given.
func TestReadmeCIJobWorksAsWritten(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "swaks", "date"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- ci:begin -->")
	block, _, ok2 := strings.Cut(block, "<!-- ci:end -->")
	if !ok || !ok2 || !strings.Contains(block, "TEMPMAIL_SERVER: ") {
		t.Fatal("README has no CI job that sets TEMPMAIL_SERVER")
	}
	steps := runSteps(block)
	if len(steps) != 4 {
		t.Fatalf("%d steps with run in the README's job, want 4:\n%q", len(steps), steps)
	}

	svc, base := startService(t, t.TempDir())
	work := t.TempDir()
	for name, script := range map[string]string{
		"sign-up.sh":     `swaks --silent --server "$SMTP" --to "$1" --from shop@example.com --header "Subject: Your code" --body "Your code is 482913."`,
		"resend-code.sh": `swaks --silent --server "$SMTP" --to "$1" --from shop@example.com --header "Subject: Your new code" --body "Your new code is 551204."`,
		"confirm.sh":     `echo "$1" >> confirmed.txt`,
	} {
		if err := os.WriteFile(filepath.Join(work, name), []byte("#!/bin/sh\nset -e\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	githubEnv := filepath.Join(work, "github-env")
	if err := os.WriteFile(githubEnv, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	for i, step := range steps {
		env := append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"TEMPMAIL_SERVER="+base, "SMTP="+svc.SMTP.Addr(), "GITHUB_ENV="+githubEnv)
		b, err := os.ReadFile(githubEnv)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line != "" {
				env = append(env, line) // NAME=value, taken literally, as GitHub does
			}
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		said.Write(out)
		if err != nil {
			t.Fatalf("step %d failed: %v\n%s\n%s", i+1, err, step, out)
		}
	}
	confirmed, _ := os.ReadFile(filepath.Join(work, "confirmed.txt"))
	if string(confirmed) != "482913\n551204\n" {
		t.Errorf("codes confirmed: %q, want the first code and then the new one", confirmed)
	}
	env, _ := os.ReadFile(githubEnv)
	token, _, _ := strings.Cut(strings.TrimPrefix(string(env), "TEMPMAIL_TOKEN="), "\n")
	if len(token) != 26 || !strings.Contains(string(env), "\nTEMPMAIL_ADDRESS=") {
		t.Fatalf("$GITHUB_ENV: %q", env)
	}
	// The token shows in the log only where GitHub masks it.
	if got := strings.ReplaceAll(said.String(), "::add-mask::"+token+"\n", ""); got == said.String() || strings.Contains(got, token) ||
		!strings.HasSuffix(got, "deleted the inbox and its mail\n") {
		t.Errorf("the steps said:\n%s", said.String())
	}
}

// runSteps are the scripts of a GitHub Actions job's steps: each `run: |`
// block, or one-line `run:`, in order.
func runSteps(yaml string) []string {
	var steps []string
	lines := strings.Split(yaml, "\n")
	for i := 0; i < len(lines); i++ {
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		run, ok := strings.CutPrefix(strings.TrimLeft(lines[i], " -"), "run: ")
		if !ok {
			continue
		}
		if run != "|" {
			steps = append(steps, run)
			continue
		}
		var body []string
		for i+1 < len(lines) && len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > indent {
			i++
			body = append(body, strings.TrimSpace(lines[i]))
		}
		steps = append(steps, strings.Join(body, "\n"))
	}
	return steps
}
