package service_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/eventually"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// fixture4 is what manifest.json names in store-format4.tar.gz
// (testdata/make-store-format4.sh made it).
type fixture4 struct {
	APIToken      string `json:"api_token"`
	Tenant        string `json:"tenant"`
	DeletedTenant string `json:"deleted_tenant"`
	Key           string `json:"key"`
	RevokedKey    string `json:"revoked_key"`
	C1            struct{ Token, Read string }
	A1            struct{ ID, Email string }
	MailTM        struct{ Address, Password string } `json:"mailtm"`
	Server        string                             `json:"mailosaur_server"`
}

// TestUpgradeFromTheStoreOfFormat4: a data directory written by the
// release of the store's format 4, with tenants, keys and an inbox of
// every family, is served by this build as it was: its views, of format
// 4, are rebuilt from the log at the first start (format 5 keeps an
// inbox's retention, not the letter of the API that made it), and every
// inbox, message, tenant and key, and what was deleted or revoked, stays
// so. The mailbox, recorded with the letter B, still keeps each message
// for --message-retention, and the other inboxes theirs for as long as
// they live.
func TestUpgradeFromTheStoreOfFormat4(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	unpack(t, "store-format4.tar.gz", root)
	var fx fixture4
	b, err := os.ReadFile(filepath.Join(root, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	cfg := servicetest.Config(t)
	cfg.DataDir, cfg.Domains, cfg.APIToken = filepath.Join(root, "data"), []string{"fixture.test"}, fx.APIToken
	cfg.MessageRetention = 2 * time.Second
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	if g := svc.Views.Generation(); g != 2 {
		t.Errorf("views generation %d: want the views of format 4 rebuilt from the log (2)", g)
	}
	admin := []string{"Authorization", "Bearer " + fx.APIToken}
	key := []string{"Authorization", "Bearer " + fx.Key}

	// Family C: both messages, the first read, the second's code.
	list := servicetest.Messages(t, base, fx.C1.Token)
	if len(list) != 2 || list[1].ID != fx.C1.Read || !list[1].IsRead || list[0].IsRead || list[0].Subject != "c1 second 123456" {
		t.Errorf("c1's messages: %+v", list)
	}
	if code, b := servicetest.Call(t, "GET", base+"/inboxes/"+fx.C1.Token+"/otp/", ""); code != 200 || !strings.Contains(string(b), `"123456"`) {
		t.Errorf("c1's code: %d %s", code, b)
	}
	// Family B's mailbox, and the tenant's family A inbox, by its key.
	if code, b := servicetest.Call(t, "GET", base+"/api/mailstore/mailbox/b1/", ""); code != 200 || !strings.Contains(string(b), `"total":1`) {
		t.Errorf("family B's mailbox: %d %s", code, b)
	}
	if code, b := servicetest.Call(t, "GET", base+"/api/inboxes/"+fx.A1.ID+"/emails/", "", key...); code != 200 || !strings.Contains(string(b), "a tenant's") {
		t.Errorf("the tenant's inbox by its key: %d %s", code, b)
	}
	// The tenant, its live key, its revoked one, the deleted tenant.
	code, b := servicetest.Call(t, "GET", base+"/api/tenants/", "", admin...)
	if code != 200 || !strings.Contains(string(b), fx.Tenant) || strings.Contains(string(b), fx.DeletedTenant) {
		t.Errorf("the tenants: %d %s", code, b)
	}
	if code, b := servicetest.Call(t, "GET", base+"/api/usage/", "", key...); code != 200 || !strings.Contains(string(b), `"inboxes"`) {
		t.Errorf("the tenant's usage: %d %s", code, b)
	}
	if code, _ := servicetest.Call(t, "GET", base+"/api/usage/", "", "Authorization", "Bearer "+fx.RevokedKey); code != http.StatusUnauthorized {
		t.Errorf("the revoked key: %d, want 401", code)
	}
	// mail.tm: the account's password still logs in, and its mail is there.
	code, b = servicetest.Call(t, "POST", base+"/compat/mailtm/token", `{"address":"`+fx.MailTM.Address+`","password":"`+fx.MailTM.Password+`"}`,
		"Content-Type", "application/json")
	var tok struct{ Token string }
	if code != 200 || json.Unmarshal(b, &tok) != nil || tok.Token == "" {
		t.Fatalf("mail.tm login: %d %s", code, b)
	}
	if code, b := servicetest.Call(t, "GET", base+"/compat/mailtm/messages", "", "Authorization", "Bearer "+tok.Token); code != 200 || !strings.Contains(string(b), "mail.tm's") {
		t.Errorf("mail.tm's messages: %d %s", code, b)
	}
	// Mailosaur: the server is the tenant's still.
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(fx.Key+":"))
	if code, b := servicetest.Call(t, "GET", base+"/compat/mailosaur/api/servers", "", "Authorization", basic); code != 200 || !strings.Contains(string(b), fx.Server) {
		t.Errorf("the Mailosaur servers: %d %s", code, b)
	}

	// New mail lands beside the old.
	if err := servicetest.Mail(svc.SMTPAddr(), "c1@fixture.test", "after the upgrade", "new"); err != nil {
		t.Fatal(err)
	}
	if list := servicetest.Messages(t, base, fx.C1.Token); len(list) != 3 || list[0].Subject != "after the upgrade" {
		t.Errorf("after new mail: %+v", list)
	}

	// Retention means what it meant: the mailbox's new message goes after
	// the retention, the other inboxes' stay; the mailbox's old one, whose
	// retention was the old build's (90 days), stays too.
	retainedAsBefore(t, svc, "b1@fixture.test", "c1@fixture.test", fx.A1.Email, fx.MailTM.Address)
	code, b = servicetest.Call(t, "GET", base+"/api/mailstore/mailbox/b1/", "")
	var box struct {
		Emails []struct{ Filename, Subject string }
	}
	if code != 200 || json.Unmarshal(b, &box) != nil || len(box.Emails) != 1 || box.Emails[0].Subject != "b1 kept" {
		t.Fatalf("the mailbox after the retention: %d %s", code, b)
	}
	// Deleted, the old message takes its retention schedule with it, as
	// a retained message does.
	old := strings.TrimSuffix(box.Emails[0].Filename, ".eml")
	if !scheduled(t, svc, old) {
		t.Fatalf("the mailbox's old message %s has no retention schedule in the log", old)
	}
	if code, b := servicetest.Call(t, "DELETE", base+"/api/mailstore/mailbox/b1/"+box.Emails[0].Filename+"/delete/", ""); code/100 != 2 {
		t.Fatalf("delete the mailbox's old message: %d %s", code, b)
	}
	eventually.True(t, "the deleted message's retention schedule withdrawn", func() bool { return !scheduled(t, svc, old) })
}

// retainedAsBefore checks, on a service upgraded with a short
// --message-retention, that the mailbox (made through the mailbox API,
// and recorded so before this build by the letter B) keeps a new message
// for the retention, and that each of others keeps one for as long as it
// lives. Each of others gets its message first and the mailbox last: once
// the mailbox's is gone, theirs, older, would be gone too had they been
// retained.
func retainedAsBefore(t *testing.T, svc *service.Service, mailbox string, others ...string) {
	t.Helper()
	count := func(addr string) int {
		t.Helper()
		in, err := svc.Views.InboxByAddress(t.Context(), addr)
		if err != nil {
			t.Fatalf("inbox %s: %v", addr, err)
		}
		return in.Count
	}
	before := map[string]int{}
	for _, addr := range append(others, mailbox) {
		before[addr] = count(addr)
		// Its 250 says the message is in the views.
		if err := servicetest.Mail(svc.SMTPAddr(), addr, "retained or not", "x"); err != nil {
			t.Fatal(err)
		}
		if n := count(addr); n != before[addr]+1 {
			t.Fatalf("%s holds %d messages after one more, want %d", addr, n, before[addr]+1)
		}
	}
	eventually.True(t, mailbox+"'s new message deleted after the retention", func() bool { return count(mailbox) == before[mailbox] })
	for _, addr := range others {
		if n := count(addr); n != before[addr]+1 {
			t.Errorf("%s holds %d messages once the retention has passed, want %d: its messages were retained", addr, n, before[addr]+1)
		}
	}
}

// scheduled reports whether the log holds a schedule for the message id
// (events' subjects.go: sched.<part>.<addrKey>.<inboxID>.<messageID>).
func scheduled(t *testing.T, svc *service.Service, id string) bool {
	t.Helper()
	info, err := svc.Store.Stream().Info(t.Context(), jetstream.WithSubjectFilter("sched.>"))
	if err != nil {
		t.Fatal(err)
	}
	for subj := range info.State.Subjects {
		if strings.HasSuffix(subj, "."+id) {
			return true
		}
	}
	return false
}
