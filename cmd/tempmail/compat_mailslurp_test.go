package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// The MailSlurp family as its own SDK sees it: the published
// `mailslurp-client`, at the exact version of
// testdata/compat-mailslurp/package.json, unchanged, given the family's
// base path alone (issue 33).

// mailslurpReport is what testdata/compat-mailslurp/client.mjs prints at
// its end.
type mailslurpReport struct {
	Inbox struct {
		ID           string
		EmailAddress string
		CreatedAt    bool // a Date, as the SDK reads the time
	}
	Latest struct{ ID, Subject string }
	Email  struct {
		Subject, Body, From string
		To                  []string
		IsHTML, Read        bool
	}
	Found struct {
		Nth, Matching string
		Emails        []string
		Counted       []string
		MatchingAll   []string
		Match         []string
		Code          string
	}
	TimedOut  *sdkRefusal
	Isolation map[string]*sdkRefusal
	Reader    struct {
		GetEmail    string
		CreateInbox *sdkRefusal
		DeleteEmail *sdkRefusal
	}
	Unsupported *sdkRefusal
	BadKey      *sdkRefusal
	Gone        *sdkRefusal
}

// sdkRefusal is what the SDK threw for an error answer: its parsed body.
type sdkRefusal struct {
	Status  int
	Message string
	Thrown  string
}

// TestMailSlurpFromItsSDK: with a tenant's key, the SDK makes an inbox,
// waits (its own held wait) for the mail this test sends it over SMTP,
// reads it whole (body, subject), finds it by index, by match and by
// count, lists the inbox, matches a pattern and extracts its code, is told 408 when
// nothing more comes, deletes the email and the inbox. Another tenant's
// key is answered 404 for them; a read key reads, and cannot make or
// delete (403); an endpoint the family lacks is 501, a bad key 401.
func TestMailSlurpFromItsSDK(t *testing.T) {
	t.Parallel()
	dir := npmPackages(t, "compat-mailslurp", "the MailSlurp family was not checked with the mailslurp-client SDK", "client.mjs")
	cfg := testConfig(t.TempDir(), "tempmail.test")
	cfg.APIToken = adminToken
	svc, base := startServiceWith(t, cfg)
	ours := newTenant(t, base, adminToken, "ours")
	keyOurs, readOurs := newTenantKey(t, base, adminToken, ours, `["inboxes"]`), newTenantKey(t, base, adminToken, ours, `["read"]`)
	keyOther := newTenantKey(t, base, adminToken, newTenant(t, base, adminToken, "other"), `["inboxes"]`)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", base+"/compat/mailslurp", keyOurs, readOurs, keyOther)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	if !lines.Scan() {
		_ = cmd.Wait()
		t.Fatalf("the SDK made no inbox: %s", stderr.Bytes())
	}
	addr := lines.Text()
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", addr, "From: Shop <shop@example.com>\r\nTo: "+addr+
		"\r\nSubject: Your code\r\nContent-Type: text/plain\r\n\r\nYour code is 482913.\r\n")
	var out []byte
	if lines.Scan() {
		out = lines.Bytes()
	}
	if err := cmd.Wait(); err != nil || stderr.Len() > 0 {
		t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, out, stderr.Bytes())
	}
	var r mailslurpReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the SDK's report: %v\n%s", err, out)
	}

	if r.Inbox.EmailAddress != addr || !strings.HasSuffix(addr, "@tempmail.test") || !r.Inbox.CreatedAt {
		t.Errorf("createInbox: %+v", r.Inbox)
	}
	id := r.Latest.ID
	if r.Latest.Subject != "Your code" || r.Email.Subject != "Your code" || !strings.Contains(r.Email.Body, "Your code is 482913.") ||
		r.Email.From != "shop@example.com" || !reflect.DeepEqual(r.Email.To, []string{addr}) || r.Email.IsHTML || !r.Email.Read {
		t.Errorf("waitForLatestEmail %+v, getEmail %+v", r.Latest, r.Email)
	}
	if r.Found.Nth != id || r.Found.Matching != id || !reflect.DeepEqual(r.Found.Emails, []string{id}) ||
		!reflect.DeepEqual(r.Found.Counted, []string{id}) || !reflect.DeepEqual(r.Found.MatchingAll, []string{id}) ||
		!reflect.DeepEqual(r.Found.Match, []string{"code is 482913", "482913"}) || r.Found.Code != "482913" {
		t.Errorf("found: %+v", r.Found)
	}
	refused := func(what string, got *sdkRefusal, status int, message string) {
		t.Helper()
		if got == nil || got.Status != status || !strings.Contains(got.Message, message) {
			t.Errorf("%s: %+v, want %d %q", what, got, status, message)
		}
	}
	refused("waitForLatestEmail with nothing unread", r.TimedOut, 408, "Failed to satisfy email query for inbox "+r.Inbox.ID)
	for _, call := range []string{"getInbox", "getEmail", "deleteInbox"} {
		refused("another tenant's "+call, r.Isolation[call], 404, "not found")
	}
	if r.Reader.GetEmail != id {
		t.Errorf("a read key's getEmail: %q", r.Reader.GetEmail)
	}
	refused("a read key's createInbox", r.Reader.CreateInbox, 403, "no inboxes scope")
	refused("a read key's deleteEmail", r.Reader.DeleteEmail, 403, "no inboxes scope")
	refused("sendEmail", r.Unsupported, 501, "POST /inboxes/"+r.Inbox.ID+"/confirm is not supported by tempmail's MailSlurp family")
	refused("a bad key", r.BadKey, 401, "Invalid key")
	refused("getInbox after deleteInbox", r.Gone, 404, "Inbox not found")
}
