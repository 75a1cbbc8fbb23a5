package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The README's quick-start block, pasted into a shell as written, works
// against a running service (only the ports are the test's own).
func TestReadmeQuickStartWorksAsWritten(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "swaks", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- quickstart:begin -->")
	block, _, ok2 := strings.Cut(block, "<!-- quickstart:end -->")
	if !ok || !ok2 {
		t.Fatal("README has no quick-start block")
	}
	script := strings.TrimSpace(block)
	script = strings.TrimPrefix(script, "```sh")
	script = strings.TrimSuffix(script, "```")

	_, base, smtpAddr := runServeSMTP(t, t.TempDir())
	script = strings.ReplaceAll(script, "localhost:8080", strings.TrimPrefix(base, "http://"))
	script = strings.ReplaceAll(script, "127.0.0.1:2525", smtpAddr)
	out, err := exec.Command("bash", "-eu", "-o", "pipefail", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("quick-start failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"otp":"482913"`) || !strings.Contains(last, `"subject":"Your sign-up code"`) {
		t.Errorf("the quick-start's last line is %q, want the code 482913\n%s", last, out)
	}
	if !strings.Contains(string(out), `"text":"Welcome! Your code is 482913.`) {
		t.Errorf("the message was not read back:\n%s", out)
	}
}
