package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"tempmail/api"
	"tempmail/config"
)

// redoclyCLI is the @redocly/cli the document is linted with, pinned: a
// new release's rules must not fail a build that changed nothing (and
// later releases need Node.js 22).
const redoclyCLI = "@redocly/cli@2.77.0"

// TestOpenAPIPassesRedoclyRecommended lints the document the service
// serves with redocly's recommended rules, as people who generate clients
// from it do; redocly.yaml turns off the few that do not fit, each with
// its reason. Every problem, error or warning, fails the test. It needs
// npx (Node.js), which .ci/run installs; without it the test is skipped.
func TestOpenAPIPassesRedoclyRecommended(t *testing.T) {
	t.Parallel()
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("npx (Node.js) is not installed: redocly's lint of api/openapi.json is not run")
	}
	srv := api.New(api.Deps{Config: config.Default(), Log: slog.New(slog.DiscardHandler)})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d", rec.Code)
	}
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, rec.Body.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := filepath.Abs("redocly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // the first run downloads it
	defer cancel()
	cmd := exec.CommandContext(ctx, npx, "--yes", redoclyCLI, "lint", "--config", cfg, "--format", "json", doc)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var report struct {
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Location []struct {
				Pointer string `json:"pointer"`
			} `json:"location"`
		} `json:"problems"`
	}
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		t.Fatalf("npx %s lint did not report (%v, %v):\n%s\n%s", redoclyCLI, err, jerr, out, stderr.String())
	}
	for _, p := range report.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		t.Errorf("redocly %s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
	}
	if err != nil && len(report.Problems) == 0 {
		t.Errorf("npx %s lint: %v\n%s", redoclyCLI, err, stderr.String())
	}
}
