package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testVersion is what TestMain stamps the binary with, as make build does.
const testVersion = "v0.0.0-test-stamp"

// The version make build stamps shows in `tempmail version`, in /metrics
// and in the start-up line; here with JSON logs from the environment.
func TestStampedVersionShowsEverywhere(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "version").Output()
	if err != nil || string(out) != "tempmail "+testVersion+"\n" {
		t.Errorf("version: %q %v, want %q", out, err, "tempmail "+testVersion)
	}
	cmd := exec.Command(binary, "serve", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0", "--smtp-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TEMPMAIL_LOG_FORMAT=json")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan map[string]any, 100)
	bad := make(chan string, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var v map[string]any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				bad <- sc.Text()
				return
			}
			lines <- v
		}
	}()
	var ready map[string]any
	for ready == nil {
		select {
		case v := <-lines:
			if v["msg"] == "tempmail ready" {
				ready = v
			}
		case line := <-bad:
			t.Fatalf("not a JSON line: %s", line)
		case <-time.After(30 * time.Second):
			t.Fatal("tempmail serve did not become ready")
		}
	}
	if ready["version"] != testVersion {
		t.Errorf("ready line: version %v, want %s", ready["version"], testVersion)
	}
	body := scrape(t, "http://"+ready["http"].(string))
	want := `tempmail_build_info{go_version="` + runtime.Version() + `",version="` + testVersion + `"} 1`
	if !strings.Contains(body, want) {
		t.Errorf("metrics lack %s", want)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	for v := range lines { // to the end: every line JSON, the last ones included
		_ = v
	}
	select {
	case line := <-bad:
		t.Errorf("not a JSON line: %s", line)
	default:
	}
}
