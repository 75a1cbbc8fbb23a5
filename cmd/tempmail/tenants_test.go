package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tempmail/service/servicetest"
)

// adminToken is the service's API token, the admin key, in these tests.
const adminToken = "test-admin-token-0123456789"

func TestTenantsAndKeysFromTheCommandLine(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t.TempDir())
	cfg.APIToken = adminToken
	svc, base := startServiceWith(t, cfg)
	admin := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_API_TOKEN": adminToken}
	var printed strings.Builder // every output but key new's, where no key may be
	cli := func(env map[string]string, args ...string) (int, string, string) {
		t.Helper()
		status, out, errOut := runCLI(env, args...)
		printed.WriteString(out + errOut)
		return status, out, errOut
	}
	newKey := func(tenant, scopes string) (key, id string) {
		t.Helper()
		status, out, errOut := runCLI(nil, "key", "new", "--server", base, "--api-token", adminToken,
			"--tenant", tenant, "--scopes", scopes, "--name", "pipeline", "--expires", "720h", "--json")
		var k struct {
			ID, Key  string
			TenantID string `json:"tenant_id"`
		}
		if err := json.Unmarshal([]byte(out), &k); status != 0 || err != nil || !strings.HasPrefix(k.Key, "tm_") ||
			k.TenantID != tenant || errOut != "" {
			t.Fatalf("key new: %d %q %q", status, out, errOut)
		}
		return k.Key, k.ID
	}

	status, out, errOut := cli(admin, "tenant", "new", "ci", "--inboxes", "2")
	tenantA := strings.TrimSpace(out)
	if status != 0 || len(tenantA) != 36 || errOut != "" {
		t.Fatalf("tenant new: %d %q %q", status, out, errOut)
	}
	status, out, errOut = cli(admin, "tenant", "new", "--json", "other")
	var b struct{ ID, Name string }
	if err := json.Unmarshal([]byte(out), &b); status != 0 || err != nil || b.Name != "other" {
		t.Fatalf("tenant new --json: %d %q %q", status, out, errOut)
	}
	keyA, idA := newKey(tenantA, "inboxes")
	keyB, _ := newKey(b.ID, "inboxes,read")
	// The plain output is the key alone, for KEY=$(tempmail key new ...).
	status, out, _ = runCLI(admin, "key", "new", "--tenant", tenantA, "--scopes", "read")
	readA := strings.TrimSpace(out)
	if status != 0 || !strings.HasPrefix(readA, "tm_") || strings.Count(out, "\n") != 1 {
		t.Fatalf("key new: %d %q", status, out)
	}

	// An inbox made with A's key is A's: it counts against A's quota of 2.
	asA := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_KEY": keyA}
	status, out, errOut = cli(asA, "inbox", "new", "--json")
	var in struct{ Token, Address string }
	if err := json.Unmarshal([]byte(out), &in); status != 0 || err != nil {
		t.Fatalf("inbox new with A's key: %d %q %q", status, out, errOut)
	}
	if status, _, errOut = cli(nil, "inbox", "new", "--server", base, "--key", keyA); status != 0 {
		t.Fatalf("a second inbox: %d %q", status, errOut)
	}
	if status, _, errOut = cli(asA, "inbox", "new"); status != 2 || errOut != "tempmail inbox new: POST "+base+"/inboxes/: quota exceeded: inboxes 2 of 2 (HTTP 403)\n" {
		t.Errorf("a third inbox: %d %q", status, errOut)
	}
	if status, _, errOut = cli(map[string]string{"TEMPMAIL_KEY": readA}, "inbox", "new", "--server", base); status != 2 ||
		!strings.Contains(errOut, "this key has no inboxes scope (HTTP 403); check the key in TEMPMAIL_KEY") {
		t.Errorf("inbox new with a read key: %d %q", status, errOut)
	}

	// A's key reads its mail; B's is told there is no such inbox (phase 1:
	// with a key, another tenant's inbox is not found); the token alone
	// is still the capability it always was.
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, cliMail)
	if status, out, errOut = cli(asA, "wait", "--token", in.Token, "--timeout", "20s"); status != 0 || out != "482913\n" {
		t.Errorf("wait with A's key: %d %q %q", status, out, errOut)
	}
	if status, out, errOut = cli(nil, "wait", "--server", base, "--key", keyB, "--token", in.Token, "--timeout", "0s"); status != 2 ||
		errOut != "tempmail wait: GET "+base+"/inboxes/…/otp/: no inbox has this token (deleted, expired, or never made)\n" {
		t.Errorf("wait with B's key on A's inbox: %d %q %q", status, out, errOut)
	}
	if status, out, errOut = cli(nil, "inbox", "delete", "--server", base, "--key", keyB, "--token", in.Token); status != 0 ||
		!strings.Contains(out, "already gone") {
		t.Errorf("inbox delete with B's key on A's inbox: %d %q %q", status, out, errOut)
	}
	if status, out, errOut = cli(nil, "wait", "--server", base, "--token", in.Token, "--timeout", "0s"); status != 0 || out != "482913\n" {
		t.Errorf("wait with the token alone: %d %q %q", status, out, errOut)
	}

	// A key without the admin scope makes no tenant; no credential at all
	// is said before anything is sent.
	if status, _, errOut = cli(asA, "tenant", "new", "x"); status != 2 ||
		errOut != "tempmail tenant new: POST "+base+"/api/tenants/: this key has no admin scope (HTTP 403); check the key in TEMPMAIL_KEY\n" {
		t.Errorf("tenant new with A's key: %d %q", status, errOut)
	}
	if status, _, errOut = cli(map[string]string{"TEMPMAIL_SERVER": base}, "key", "revoke", idA); status != 2 ||
		!strings.Contains(errOut, "--api-token (or TEMPMAIL_API_TOKEN) is required") {
		t.Errorf("key revoke without a credential: %d %q", status, errOut)
	}

	// Revoked: refused at once, with a clear error and exit status 2.
	if status, out, errOut = cli(admin, "key", "revoke", idA); status != 0 || errOut != "" {
		t.Fatalf("key revoke: %d %q %q", status, out, errOut)
	}
	if status, out, errOut = cli(asA, "wait", "--token", in.Token, "--timeout", "0s"); status != 2 ||
		errOut != "tempmail wait: GET "+base+"/inboxes/…/otp/: Invalid key: unknown, revoked or expired. (HTTP 401); check the key in TEMPMAIL_KEY\n" {
		t.Errorf("wait with a revoked key: %d %q %q", status, out, errOut)
	}
	if status, _, errOut = cli(asA, "inbox", "new"); status != 2 || !strings.Contains(errOut, "Invalid key: unknown, revoked or expired. (HTTP 401); check the key in TEMPMAIL_KEY") {
		t.Errorf("inbox new with a revoked key: %d %q", status, errOut)
	}
	if status, _, errOut = cli(admin, "key", "revoke", idA); status != 2 || !strings.Contains(errOut, "(HTTP 404); no key has this id (revoked already, or never made)") {
		t.Errorf("key revoke again: %d %q", status, errOut)
	}

	for _, key := range []string{keyA, keyB, readA, adminToken} {
		if strings.Contains(printed.String(), key) {
			t.Errorf("a key or the API token was printed by a command other than key new:\n%s", printed.String())
		}
	}
}

// TestTenantsByNameFromTheCommandLine: tenant list shows the tenants, with
// their private domains; key new takes a tenant's name as well as its id,
// and says when a name is nobody's or several tenants'.
func TestTenantsByNameFromTheCommandLine(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t.TempDir())
	cfg.APIToken = adminToken
	_, base := startServiceWith(t, cfg)
	admin := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_API_TOKEN": adminToken}
	status, out, errOut := runCLI(admin, "tenant", "new", "billing", "--inboxes", "7", "--storage", "1GiB", "--domains", "billing.test, mail.billing.test")
	billing := strings.TrimSpace(out)
	if status != 0 || errOut != "" {
		t.Fatalf("tenant new --domains: %d %q %q", status, out, errOut)
	}
	runCLI(admin, "tenant", "new", "twin")
	runCLI(admin, "tenant", "new", "twin")

	status, out, errOut = runCLI(admin, "tenant", "list")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if status != 0 || errOut != "" || len(lines) != 3 ||
		lines[0] != billing+"\tbilling\tinboxes=7,messages_per_day=0,storage_bytes=1073741824,webhooks=0\tbilling.test,mail.billing.test" ||
		!strings.Contains(lines[1], "\ttwin\t") {
		t.Errorf("tenant list: %d %q %q", status, out, errOut)
	}
	status, out, _ = runCLI(admin, "tenant", "list", "--name", "twin", "--json")
	var twins []struct{ ID, Name string }
	if err := json.Unmarshal([]byte(out), &twins); status != 0 || err != nil || len(twins) != 2 || twins[0].Name != "twin" {
		t.Errorf("tenant list --name twin --json: %d %q", status, out)
	}

	status, out, errOut = runCLI(admin, "key", "new", "--tenant", "billing", "--scopes", "inboxes", "--json")
	var k struct {
		Key      string
		TenantID string `json:"tenant_id"`
	}
	if err := json.Unmarshal([]byte(out), &k); status != 0 || err != nil || k.TenantID != billing {
		t.Fatalf("key new --tenant billing: %d %q %q", status, out, errOut)
	}
	// The key makes inboxes on its tenant's domain.
	status, out, errOut = runCLI(map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_KEY": k.Key}, "inbox", "new", "--domain", "billing.test", "--json")
	var in struct{ Token, Address string }
	if err := json.Unmarshal([]byte(out), &in); status != 0 || err != nil || !strings.HasSuffix(in.Address, "@billing.test") {
		t.Fatalf("inbox new on its domain: %d %q %q", status, out, errOut)
	}
	if status, _, errOut = runCLI(admin, "key", "new", "--tenant", "twin", "--scopes", "read"); status != 2 ||
		errOut != `tempmail key new: --tenant "twin": 2 tenants have this name; give the id of the one you mean (tempmail tenant list --name shows them)`+"\n" {
		t.Errorf("key new --tenant twin: %d %q", status, errOut)
	}
	if status, _, errOut = runCLI(admin, "key", "new", "--tenant", "nobody", "--scopes", "read"); status != 2 ||
		errOut != `tempmail key new: --tenant "nobody": no tenant has this name or id (tempmail tenant list shows them)`+"\n" {
		t.Errorf("key new --tenant nobody: %d %q", status, errOut)
	}

	// Deleted by name, the tenant takes its key, its inbox and its domains
	// with it; a second time, it is not found.
	if status, out, errOut = runCLI(admin, "tenant", "delete", "twin"); status != 2 ||
		errOut != `tempmail tenant delete: "twin": 2 tenants have this name; give the id of the one you mean (tempmail tenant list --name shows them)`+"\n" {
		t.Errorf("tenant delete twin: %d %q %q", status, out, errOut)
	}
	if status, out, errOut = runCLI(admin, "tenant", "delete", "billing"); status != 0 || errOut != "" ||
		out != "deleted the tenant "+billing+": its keys are refused, its inboxes gone with their mail, its domains inactive\n" {
		t.Errorf("tenant delete billing: %d %q %q", status, out, errOut)
	}
	if code, b := call(t, "GET", base+"/inboxes/"+in.Token+"/", ""); code != http.StatusNotFound {
		t.Errorf("the tenant's inbox after its deletion: %d %s", code, b)
	}
	if status, _, errOut = runCLI(map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_KEY": k.Key}, "inbox", "new"); status == 0 {
		t.Errorf("inbox new with the deleted tenant's key: %d %q", status, errOut)
	}
	if code, b := call(t, "GET", base+"/api/domains/", "", "Authorization", "Token "+adminToken); code != http.StatusOK || strings.Contains(string(b), "billing.test") {
		t.Errorf("the domains after the tenant's deletion: %d %s", code, b)
	}
	if status, _, errOut = runCLI(admin, "tenant", "delete", billing); status != 2 ||
		errOut != "tempmail tenant delete: no tenant has the id "+billing+": deleted already, or never made (tempmail tenant list shows them)\n" {
		t.Errorf("tenant delete of a deleted tenant: %d %q", status, errOut)
	}
	if status, out, _ = runCLI(admin, "tenant", "list"); status != 0 || strings.Contains(out, "billing") {
		t.Errorf("tenant list after the deletion: %d %q", status, out)
	}
}

// TestAdminCommandsRefuseBadArguments: what cannot be sent is said on
// stderr with exit status 2, before anything is sent.
func TestAdminCommandsRefuseBadArguments(t *testing.T) {
	t.Parallel()
	env := map[string]string{"TEMPMAIL_SERVER": "http://127.0.0.1:1", "TEMPMAIL_API_TOKEN": adminToken}
	const id = "6144e153-c3ac-4c57-bdb1-69d7b4c540cd"
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"tenant"}, "usage: tempmail tenant new NAME"},
		{[]string{"tenant", "new"}, "give the tenant's NAME, one argument (got 0)"},
		{[]string{"tenant", "new", "a", "b"}, "give the tenant's NAME, one argument (got 2)"},
		{[]string{"tenant", "new", "a", "--inboxes", "many"}, "tempmail tenant new: invalid value \"many\" for --inboxes: not a whole number; run 'tempmail tenant new --help' for usage\n"},
		{[]string{"tenant", "new", "a", "--storage", "1gb"}, `invalid value "1gb" for --storage: "1gb" is not a size`},
		{[]string{"tenant", "list", "extra"}, `takes no arguments (got "extra")`},
		{[]string{"tenant", "delete"}, "give the tenant's name or id, one argument"},
		{[]string{"tenant", "delete", "a", "b"}, "give the tenant's name or id, one argument"},
		{[]string{"tenant", "delete", strings.Repeat("n", 65)}, "is neither a tenant's name (at most 64 characters) nor its id"},
		{[]string{"key"}, "usage: tempmail key new --tenant NAME|ID"},
		{[]string{"key", "new", "--scopes", "inboxes"}, "--tenant is required"},
		{[]string{"key", "new", "--tenant", strings.Repeat("n", 65), "--scopes", "inboxes"}, "is neither a tenant's name (at most 64 characters) nor its id"},
		{[]string{"key", "new", "--tenant", id}, "--scopes is required"},
		{[]string{"key", "new", "--tenant", id, "--scopes", "read", "--expires", "soon"}, `--expires "soon" is neither a duration`},
		{[]string{"key", "new", "--tenant", id, "--scopes", "read", "--expires", "-1h"}, "--expires -1h is not in the future"},
		{[]string{"key", "revoke"}, "give the key's ID, one argument"},
		{[]string{"key", "revoke", "tm_notanid"}, "give the key's ID, one argument"},
	} {
		status, out, errOut := runCLI(env, c.args...)
		if status != 2 || out != "" || !strings.Contains(errOut, c.stderr) || strings.Contains(errOut, "connection refused") {
			t.Errorf("%v: %d %q %q, want 2 and %q", c.args, status, out, errOut, c.stderr)
		}
	}
	for _, args := range [][]string{{"tenant", "new", "-h"}, {"tenant", "list", "-h"}, {"tenant", "delete", "-h"}, {"key", "new", "--help"}, {"key", "revoke", "-h"}, {"help", "key"}, {"tenant", "help"}} {
		status, out, errOut := runCLI(env, args...)
		if status != 0 || !strings.Contains(out, "usage: tempmail") || errOut != "" || strings.Contains(out, adminToken) {
			t.Errorf("%v: %d %q %q", args, status, out, errOut)
		}
	}
}

// TestMCPCommandPassesTheKeyOn: `tempmail mcp` (the built binary, as a
// host starts it) with TEMPMAIL_KEY acts for the key's tenant: a read key
// makes no inbox, an inboxes key makes its tenant's.
func TestMCPCommandPassesTheKeyOn(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t.TempDir())
	cfg.APIToken = adminToken
	_, base := startServiceWith(t, cfg)
	admin := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_API_TOKEN": adminToken}
	_, out, _ := runCLI(admin, "tenant", "new", "agents", "--inboxes", "1")
	tenant := strings.TrimSpace(out)
	_, out, _ = runCLI(admin, "key", "new", "--tenant", tenant, "--scopes", "inboxes")
	key := strings.TrimSpace(out)
	_, out, _ = runCLI(admin, "key", "new", "--tenant", tenant, "--scopes", "read")
	read := strings.TrimSpace(out)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session := func(env ...string) *mcp.ClientSession {
		cmd := exec.Command(binary, "mcp")
		cmd.Env = append(os.Environ(), append([]string{"TEMPMAIL_SERVER=" + base}, env...)...)
		s, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	errorOf := func(s *mcp.ClientSession) string {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "create_inbox", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			return ""
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if e := errorOf(session("TEMPMAIL_KEY=" + read)); !strings.Contains(e, "no inboxes scope") {
		t.Errorf("create_inbox with a read key: %q", e)
	}
	withKey := session("TEMPMAIL_KEY=" + key)
	if e := errorOf(withKey); e != "" {
		t.Errorf("create_inbox with an inboxes key: %q", e)
	}
	// The tenant's quota of one is used: the inbox was the tenant's.
	if e := errorOf(withKey); !strings.Contains(e, "quota exceeded: inboxes 1 of 1") || strings.Contains(e, key) {
		t.Errorf("a second create_inbox: %q", e)
	}
	if e := errorOf(session()); e != "" {
		t.Errorf("create_inbox without a key: %q", e)
	}
}
