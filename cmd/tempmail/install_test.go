package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeInstallPutsTheCommandOnThePath: `make install` builds tempmail
// into $(PREFIX)/bin when PREFIX is given, else into $GOBIN, else into the
// first $GOPATH's bin, where `go install` puts commands.
func TestMakeInstallPutsTheCommandOnThePath(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"PREFIX", []string{"PREFIX=" + dir + "/usr"}, []string{"GOBIN=" + dir + "/unused"}, dir + "/usr/bin/tempmail"},
		{"GOBIN", nil, []string{"GOBIN=" + dir + "/gobin"}, dir + "/gobin/tempmail"},
		// Without GOBIN: the first GOPATH's bin (the module cache kept
		// where it is, so that nothing is fetched).
		{"GOPATH", nil, []string{"GOBIN=", "GOPATH=" + dir + "/gopath:" + dir + "/other", "GOMODCACHE=" + strings.TrimSpace(string(modcache))},
			dir + "/gopath/bin/tempmail"},
	} {
		cmd := exec.Command("make", append([]string{"-s", "-C", "../..", "install"}, c.args...)...)
		cmd.Env = append(os.Environ(), c.env...)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "installed "+c.want {
			t.Errorf("%s: make install: %v\n%s", c.name, err, out)
			continue
		}
		if v, err := exec.Command(c.want, "version").Output(); err != nil || !strings.HasPrefix(string(v), "tempmail ") {
			t.Errorf("%s: %s version: %q %v", c.name, c.want, v, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "unused")); err == nil {
		t.Error("PREFIX given, and GOBIN was written to too")
	}
}
