package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// The mail.tm family (package api/compat/mailtm) as a published mail.tm
// client sees it: mailjs (@cemalgnlts/mailjs), at the exact version of
// testdata/compat-mailtm/package.json, unchanged, pointed at the server
// by the fields its constructor sets for mail.tm's hosts.

// mailtmClient installs testdata/compat-mailtm's packages (npmPackages)
// and returns the directory, with client.mjs beside them.
func mailtmClient(t *testing.T) string {
	t.Helper()
	return npmPackages(t, "compat-mailtm", "the mail.tm family was not checked with a published mail.tm client (mailjs)", "client.mjs")
}

// TestMailTMFromItsClient: mailjs, with a tenant's key, lists the domains,
// makes an account, is refused a wrong password, logs in, listens for
// mail with its event source; the test sends a message over SMTP once it
// listens; the client gets it, reads it, marks it seen, reads its source,
// deletes it and the account. Meanwhile another tenant's key finds
// neither the account nor the message.
func TestMailTMFromItsClient(t *testing.T) {
	t.Parallel()
	dir := mailtmClient(t)
	cfg := testConfig(t.TempDir(), "tempmail.test", "other.test")
	cfg.APIToken = "mailtm-admin-token-0123456789"
	svc, base := startServiceWith(t, cfg)
	key := func(name string) string {
		return newTenantKey(t, base, cfg.APIToken, newTenant(t, base, cfg.APIToken, name), `["inboxes"]`)
	}
	ours, theirs := key("ours"), key("theirs")
	const address = "mailjs-user@tempmail.test"

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := startNode(ctx, t, dir, nil, "client.mjs", base+"/compat/mailtm", ours, address)
	lines := node.Out
	line, err := lines.ReadBytes('\n')
	var ready struct{ Ready string }
	if err != nil || json.Unmarshal(line, &ready) != nil || ready.Ready == "" {
		rest, _ := io.ReadAll(lines)
		_ = node.Wait()
		t.Fatalf("the client did not say it listens: %q %v\n%s\nstderr: %s", line, err, rest, node.Stderr.Bytes())
	}
	// It listens: the mail may come.
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, "From: Shop <shop@example.com>\r\nTo: "+address+"\r\n"+
		"Message-ID: <order-1@shop.example>\r\nSubject: Your code\r\nContent-Type: text/plain\r\n\r\nYour code is 482913.\r\n")
	sentAt := time.Now() // the 250
	// Another tenant's key reaches neither the account nor its messages;
	// its own tenant's does.
	if status, body := call(t, "GET", base+"/compat/mailtm/accounts/"+ready.Ready, "", "Authorization", "Bearer "+theirs); status != http.StatusNotFound {
		t.Errorf("another tenant's key: GET /accounts/{id}: %d %s", status, body)
	}
	if status, body := call(t, "GET", base+"/compat/mailtm/accounts/"+ready.Ready, "", "Authorization", "Bearer "+ours); status != http.StatusOK {
		t.Errorf("the tenant's key: GET /accounts/{id}: %d %s", status, body)
	}

	out, _ := io.ReadAll(lines)
	if err := node.Wait(); err != nil || node.Stderr.Len() > 0 {
		t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, out, node.Stderr.Bytes())
	}
	var report struct {
		Domains              []string
		Registered, Me       string
		BadLogin             int
		Arrived              map[string]any
		Message              map[string]any
		Seen                 bool
		Listed               []map[string]any
		SourceHasSubject     bool
		Deleted, AfterDelete int
		AccountDeleted       int
		LoginAfter           int
		GotAt                int64 // when the event came, in Unix milliseconds
		SeenEvent            string
		DeleteEvent          string
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the client's report: %v\n%s", err, out)
	}
	t.Logf("from the 250 to mailjs's arrive event: %d ms", report.GotAt-sentAt.UnixMilli())
	if id := listedID(report.Listed); id == "" || report.SeenEvent != id || report.DeleteEvent != id {
		t.Errorf("mailjs's seen event %q, delete event %q, for message %q", report.SeenEvent, report.DeleteEvent, id)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, want %#v", what, got, want)
		}
	}
	check("domains", report.Domains, []string{"tempmail.test", "other.test"})
	check("register", report.Registered, address)
	check("login with a wrong password", report.BadLogin, http.StatusUnauthorized)
	check("me", report.Me, address)
	check("arrive", report.Arrived, map[string]any{"subject": "Your code", "seen": false,
		"from": map[string]any{"address": "shop@example.com", "name": "Shop"}})
	check("getMessage", report.Message, map[string]any{"subject": "Your code", "text": "Your code is 482913.\n",
		"html": []any{}, "to": []any{address}, "msgid": "<order-1@shop.example>"})
	check("setMessageSeen", report.Seen, true)
	if len(report.Listed) != 1 || report.Listed[0]["seen"] != true {
		t.Errorf("getMessages after seen: %v", report.Listed)
	}
	check("getSource has the subject", report.SourceHasSubject, true)
	check("deleteMessage", report.Deleted, http.StatusNoContent)
	check("getMessages after deleteMessage", report.AfterDelete, 0)
	check("deleteMe", report.AccountDeleted, http.StatusNoContent)
	check("login after deleteMe", report.LoginAfter, http.StatusUnauthorized)
}

// listedID is the id of the one message listed.
func listedID(listed []map[string]any) string {
	if len(listed) != 1 {
		return ""
	}
	id, _ := listed[0]["id"].(string)
	return id
}
