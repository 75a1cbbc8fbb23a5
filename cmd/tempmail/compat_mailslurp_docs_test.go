package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// TestMailSlurpSnippetOfTheDocsRuns: docs/compatible.md's MailSlurp test,
// the block between <!-- mailslurp-snippet:begin --> and its end, run as
// a user's test file with the SDK of testdata/compat-mailslurp, its two
// variables set as the page says (TEMPMAIL_SERVER, and TEMPMAIL_KEY a
// tenant's key made with the CLI's own call). Where the snippet says the
// application under test sends its mail, the test is told the address and
// sends it; the snippet finds the code, and deletes the inbox.
func TestMailSlurpSnippetOfTheDocsRuns(t *testing.T) {
	t.Parallel()
	sdk := npmPackages(t, "compat-mailslurp", "docs/compatible.md's MailSlurp snippet was not run", "client.mjs")
	page, err := os.ReadFile("../../docs/compatible.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(page), "<!-- mailslurp-snippet:begin -->\n```js\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- mailslurp-snippet:end -->")
	const sends = "// ... the application under test sends mail to inbox.emailAddress ...\n"
	if !ok || !ok2 || !strings.Contains(block, sends) {
		t.Fatalf("docs/compatible.md has no MailSlurp snippet with the line %q", sends)
	}
	script := strings.Replace(block, sends,
		"console.log(inbox.emailAddress);\nawait new Promise((sent) => process.stdin.once('data', sent));\n", 1) +
		"console.log(JSON.stringify({ matches, gone: (await mailslurp.getInboxes()).every((i) => i.id !== inbox.id) }));\nprocess.exit(0);\n"
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(sdk, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "package.json"), []byte(`{"private": true, "type": "module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "signup.test.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}

	cfg := testConfig(t.TempDir(), "tempmail.test")
	cfg.APIToken = adminToken
	svc, base := startServiceWith(t, cfg)
	key := newTenantKey(t, base, adminToken, newTenant(t, base, adminToken, "docs"), `["inboxes"]`)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	node := startNode(ctx, t, work, []string{"TEMPMAIL_SERVER=" + base, "TEMPMAIL_KEY=" + key}, "signup.test.mjs")
	lines := bufio.NewScanner(node.Out)
	if !lines.Scan() {
		_ = node.Wait()
		t.Fatalf("the snippet made no inbox: %s", node.Stderr.Bytes())
	}
	addr := lines.Text()
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", addr, "From: Shop <shop@example.com>\r\nTo: "+addr+
		"\r\nSubject: Your code\r\n\r\nWelcome! Your code is 482913.\r\n")
	if _, err := node.Stdin.Write([]byte("sent\n")); err != nil {
		t.Fatal(err)
	}
	var out []byte
	if lines.Scan() {
		out = lines.Bytes()
	}
	if err := node.Wait(); err != nil {
		t.Fatalf("node signup.test.mjs: %v\n%s\n%s", err, out, node.Stderr.Bytes())
	}
	var got struct {
		Matches []string
		Gone    bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the snippet printed %q: %v (stderr: %s)", out, err, node.Stderr.Bytes())
	}
	if !slices.Equal(got.Matches, []string{"code is 482913", "482913"}) || !got.Gone || !strings.HasSuffix(addr, "@tempmail.test") {
		t.Errorf("the snippet, for %s: matches %q, inbox deleted %v", addr, got.Matches, got.Gone)
	}
}
