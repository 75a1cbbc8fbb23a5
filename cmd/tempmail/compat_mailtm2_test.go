package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"tempmail/service/servicetest"
)

// The mail.tm family as a second kind of mail.tm client sees it: one that
// follows the links of mail.tm's answers, "@id" and "downloadUrl", by
// joining them to its base URL, as mail.tm's documentation tells clients
// to. No published client on npm does: the only other mail.tm client the
// npm registry has besides mailjs (compat_mailtm_test.go), mail.tm 0.0.5,
// has its base URL in a field its constructor sets (as mailjs does) but
// reads a source from /sources/{id}, never from a downloadUrl, and as
// published does not load (it requires node-fetch and depends on request
// instead). So testdata/compat-mailtm2/client.mjs is such a client written
// from mail.tm's documentation: plain fetch, JSON-LD answers, the Mercure
// hub for new mail, no dependency.

// needNode skips the test, loudly, without node or with
// TEMPMAIL_NODE_CLIENTS=off, and fails it instead with
// TEMPMAIL_NODE_CLIENTS=required, as npmPackages does for the clients that
// need packages. what says what goes unchecked.
func needNode(t *testing.T, what string) {
	t.Helper()
	why := ""
	if os.Getenv("TEMPMAIL_NODE_CLIENTS") == "off" {
		why = "TEMPMAIL_NODE_CLIENTS=off"
	} else if _, err := exec.LookPath("node"); err != nil {
		why = "node is not installed"
	} else {
		return
	}
	msg := fmt.Sprintf("%s: %s", why, what)
	if os.Getenv("TEMPMAIL_NODE_CLIENTS") == "required" {
		t.Fatal(msg + " (TEMPMAIL_NODE_CLIENTS=required)")
	}
	fmt.Fprintf(os.Stderr, "\n*** SKIPPED %s: %s ***\n\n", t.Name(), msg)
	t.Skip(msg)
}

// mailtmLinksReport is what testdata/compat-mailtm2/client.mjs prints at
// its end.
type mailtmLinksReport struct {
	Domains []string
	Account struct{ ID, AtID, Address string }
	TokenID string
	Me      string
	ByAtID  string
	Pushed  struct{ AtID, DownloadURL, Subject string }
	List    struct {
		Total   int
		Members []struct{ AtID, DownloadURL string }
	}
	Message struct {
		ID, AtID, Subject, Text, Msgid, DownloadURL string
		From                                        map[string]string
		To                                          []string
		Seen                                        bool
	}
	Download struct {
		Status int
		Type   string
		Length int
		Source string
	}
	Source struct {
		DownloadURL string
		Same        bool
	}
	Seen                       bool
	Deleted, AfterDelete       int
	TotalAfter                 int
	AccountDeleted, LoginAfter int
}

// TestMailTMLinksJoinedToBaseURL: a client written from mail.tm's
// documentation, given the family's base URL, its Mercure hub and a
// tenant's key: it lists the domains, makes an account on the service's
// domain, gets its token, reads the account by its @id, listens on the
// hub; this test sends a mail over SMTP once it listens; the client is
// pushed it, lists it, reads it by its @id and downloads its source by its
// downloadUrl, both joined to the base URL; the source is what was sent,
// byte for byte, under the one Received field the service puts on top of
// every message (no other trace field: authentication checks are off
// here), and GET /sources/{id} has the same. It marks the message seen,
// deletes it (then 404) and the account (then no login).
func TestMailTMLinksJoinedToBaseURL(t *testing.T) {
	t.Parallel()
	needNode(t, "the mail.tm family's @id and downloadUrl were not followed by a client that joins them to its base URL")
	cfg := testConfig(t.TempDir(), "tempmail.test")
	cfg.APIToken = adminToken
	svc, base := startServiceWith(t, cfg)
	key := newTenantKey(t, base, adminToken, newTenant(t, base, adminToken, "docs"), `["inboxes"]`)
	root := base + "/compat/mailtm"

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	node := startNode(ctx, t, "testdata/compat-mailtm2", nil, "client.mjs", root, root+"/.well-known/mercure", key)
	lines := node.Out
	line, err := lines.ReadBytes('\n')
	var ready struct{ Ready string }
	if err != nil || json.Unmarshal(line, &ready) != nil || ready.Ready == "" {
		rest, _ := io.ReadAll(lines)
		_ = node.Wait()
		t.Fatalf("the client did not say it listens: %q %v\n%s\nstderr: %s", line, err, rest, node.Stderr.Bytes())
	}
	address := ready.Ready
	// It listens: the mail may come. CRLF throughout, and a line that
	// begins with a dot (SMTP doubles it on the way and takes it off).
	sent := "From: Shop <shop@example.com>\r\nTo: " + address + "\r\nSubject: Your order\r\n" +
		"Message-ID: <order-7@shop.example>\r\nDate: Fri, 27 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: text/plain; charset=us-ascii\r\n\r\nYour order 7 has shipped.\r\n.signed, the shop\r\n"
	servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", address, sent)

	out, _ := io.ReadAll(lines)
	err = node.Wait()
	t.Logf("node client.mjs: %v in %s", err, time.Since(start).Round(time.Millisecond))
	if err != nil || node.Stderr.Len() > 0 {
		t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, out, node.Stderr.Bytes())
	}
	var r mailtmLinksReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the client's report: %v\n%s", err, out)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, want %#v", what, got, want)
		}
	}
	id, msgID := r.Account.ID, r.Message.ID
	check("domains", r.Domains, []string{"tempmail.test"})
	check("POST /accounts", r.Account.Address, address)
	check("the account's @id", r.Account.AtID, "/accounts/"+id)
	check("POST /token's id", r.TokenID, id)
	check("GET /me", r.Me, address)
	check("GET base + the account's @id", r.ByAtID, address)
	// Every link is a path under the family's root, as mail.tm's are under
	// its API's; joined to the base URL, it reaches the resource.
	atID, downloadURL := "/messages/"+msgID, "/messages/"+msgID+"/download"
	check("the message pushed by the hub", r.Pushed, struct{ AtID, DownloadURL, Subject string }{atID, downloadURL, "Your order"})
	if r.List.Total != 1 || len(r.List.Members) != 1 || r.List.Members[0].AtID != atID || r.List.Members[0].DownloadURL != downloadURL {
		t.Errorf("GET /messages: %+v, want the one message, @id %s", r.List, atID)
	}
	check("GET base + the message's @id", r.Message.AtID, atID)
	check("its subject", r.Message.Subject, "Your order")
	check("its sender", r.Message.From, map[string]string{"address": "shop@example.com", "name": "Shop"})
	check("its recipients", r.Message.To, []string{address})
	check("its text", r.Message.Text, "Your order 7 has shipped.\n.signed, the shop\n")
	check("its msgid", r.Message.Msgid, "<order-7@shop.example>")
	check("its downloadUrl", r.Message.DownloadURL, downloadURL)

	// The source: what was sent, under the service's Received field.
	d := r.Download
	if d.Status != http.StatusOK || d.Type != "message/rfc822" || d.Length != len(d.Source) {
		t.Errorf("GET base + downloadUrl: %d %q, Content-Length %d for %d bytes", d.Status, d.Type, d.Length, len(d.Source))
	}
	trace, ok := strings.CutSuffix(d.Source, sent)
	if !ok {
		t.Errorf("the source does not end with the message sent:\n%q\nsent:\n%q", d.Source, sent)
	} else if !isOneReceivedField(trace, address) {
		t.Errorf("what the service put on top of the message sent is not its Received field alone:\n%q", trace)
	}
	check("GET /sources/{id}: its downloadUrl", r.Source.DownloadURL, downloadURL)
	check("GET /sources/{id}: its data is the download", r.Source.Same, true)

	check("PATCH @id {seen: true}", r.Seen, true)
	check("DELETE @id", r.Deleted, http.StatusNoContent)
	check("GET @id after DELETE", r.AfterDelete, http.StatusNotFound)
	check("GET /messages after DELETE", r.TotalAfter, 0)
	check("DELETE the account's @id", r.AccountDeleted, http.StatusNoContent)
	check("POST /token after the account's DELETE", r.LoginAfter, http.StatusUnauthorized)
}

// isOneReceivedField says whether trace is one Received field that the
// service wrote (Commands.ReceivedHeader) for a message to rcpt: its first
// line "Received: from ...", the others folded (a tab first), CRLF after
// each.
func isOneReceivedField(trace, rcpt string) bool {
	body, ok := strings.CutSuffix(trace, "\r\n")
	if !ok || !strings.HasPrefix(body, "Received: from ") || !strings.Contains(body, " (tempmail) with ") ||
		!strings.Contains(body, "for <"+rcpt+">;") {
		return false
	}
	for _, l := range strings.Split(body, "\r\n")[1:] {
		if !strings.HasPrefix(l, "\t") || strings.ContainsAny(l, "\r\n") {
			return false
		}
	}
	return true
}
