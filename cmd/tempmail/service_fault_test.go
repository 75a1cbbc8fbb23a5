package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/smtp"
	"net/textproto"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tempmail/eventually"
)

// The admin's commands of the service's fault rules (servicefaults.go):
// `tempmail fault add`, `fault list`, `fault delete` and `tempmail
// attempts`, run as the built binary against a service in process, with
// real SMTP sessions (net/smtp); and an inbox's greylisting, set with
// `tempmail inbox fault --greylist`.

// smtpCode is the code of the reply err is, 0 for none.
func smtpCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// TestServiceFaultPausesIntake: a CONNECT rule replying 421, added with
// `fault add`, answers every SMTP client in place of the greeting; `fault
// list` shows it with how many times it acted, `attempts` what it did;
// once `fault delete` ends it, mail is taken again. A rate at CONNECT lets
// a client's first connection of the minute pass and refuses the next.
func TestServiceFaultPausesIntake(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t.TempDir())
	cfg.APIToken = adminToken
	svc, base := startServiceWith(t, cfg)
	in := createTokenInbox(t, base)
	admin := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_API_TOKEN": adminToken}

	status, out, errOut := runBinary(t, admin, "fault", "add", "--command", "CONNECT", "--reply", "421 4.3.2 paused")
	id := strings.TrimSuffix(out, "\n")
	if status != 0 || errOut != "" || id == "" || strings.ContainsAny(id, " \t\n") {
		t.Fatalf("fault add: %d %q %q, want the rule's id alone", status, out, errOut)
	}
	eventually.Nil(t, "a connection refused with 421 4.3.2 paused", func() error {
		c, err := smtp.Dial(svc.SMTPAddr())
		if err == nil {
			c.Quit()
			return errors.New("the connection was greeted")
		}
		if smtpCode(err) != 421 {
			return err
		}
		return nil
	})
	if err := smtp.SendMail(svc.SMTPAddr(), nil, "app@shop.example", []string{in.Address}, []byte(faultMail)); smtpCode(err) != 421 ||
		!strings.Contains(err.Error(), "4.3.2 paused") {
		t.Fatalf("a delivery with intake paused: %v, want 421 4.3.2 paused", err)
	}

	status, out, errOut = runBinary(t, admin, "fault", "list")
	rows := tableRows(out)
	wantHead := "id|command|reply|attempts|delay|from|to|client|priority|fired|expires"
	if status != 0 || errOut != "" || len(rows) != 2 || strings.Join(rows[0], "|") != wantHead ||
		!strings.HasPrefix(strings.Join(rows[1], "|"), id+"|CONNECT|421 4.3.2 paused|all|-|-|-|-|0|") {
		t.Fatalf("fault list: %d %q %q", status, out, errOut)
	}
	status, out, errOut = runBinary(t, admin, "fault", "list", "--json")
	var rules []map[string]any
	if err := json.Unmarshal([]byte(out), &rules); status != 0 || err != nil || len(rules) != 1 || rules[0]["id"] != id ||
		rules[0]["fired"].(float64) < 2 {
		t.Fatalf("fault list --json: %d %q %q (%v)", status, out, errOut, err)
	}

	status, out, errOut = runBinary(t, admin, "attempts")
	rows = tableRows(out)
	if status != 0 || errOut != "" || len(rows) < 3 || strings.Join(rows[0], "|") != "at|client|from|to|command|code|rule|message" ||
		strings.Join(rows[1][1:], "|") != "127.0.0.1|-|-|CONNECT|421|"+id+"|-" {
		t.Fatalf("attempts: %d %q %q", status, out, errOut)
	}
	status, out, errOut = runBinary(t, admin, "attempts", "--json", "--since", "1h")
	var attempts []map[string]any
	if err := json.Unmarshal([]byte(out), &attempts); status != 0 || err != nil || len(attempts) < 2 || attempts[0]["rule_id"] != id ||
		attempts[0]["code"] != 421.0 || attempts[0]["reply"] != "421 4.3.2 paused" {
		t.Fatalf("attempts --json: %d %q %q (%v)", status, out, errOut, err)
	}
	// Nothing reached a recipient: --rcpt finds none, and a time to come
	// none at all.
	for _, args := range [][]string{{"--rcpt", in.Address}, {"--since", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}} {
		status, out, errOut = runBinary(t, admin, append([]string{"attempts", "--json"}, args...)...)
		if status != 0 || errOut != "" || out != "[]\n" {
			t.Errorf("attempts %v: %d %q %q, want none", args, status, out, errOut)
		}
	}

	status, out, errOut = runBinary(t, admin, "fault", "delete", id)
	if status != 0 || out != "deleted the rule: deliveries meet it no more\n" || errOut != "" {
		t.Fatalf("fault delete: %d %q %q", status, out, errOut)
	}
	eventually.Nil(t, "a delivery taken once the rule is deleted", func() error {
		return smtp.SendMail(svc.SMTPAddr(), nil, "app@shop.example", []string{in.Address}, []byte(faultMail))
	})
	if list := listMessages(t, base, in.Token); len(list) != 1 {
		t.Errorf("the inbox holds %d messages, want 1", len(list))
	}
	status, out, errOut = runBinary(t, admin, "fault", "delete", id)
	if status != 0 || out != "the rule was already gone: the service has no rule with this id (deleted, expired, or never made)\n" || errOut != "" {
		t.Errorf("fault delete again: %d %q %q", status, out, errOut)
	}

	// A rate: one connection a minute from this client, the next refused.
	status, out, errOut = runBinary(t, admin, "fault", "add", "--command", "CONNECT", "--rate", "1", "--client", "127.0.0.0/8", "--json")
	var rate map[string]any
	if err := json.Unmarshal([]byte(out), &rate); status != 0 || err != nil || rate["rate"] != 1.0 || rate["client"] != "127.0.0.0/8" ||
		rate["reply"] != "421 4.7.0 Too much from your address, slow down" {
		t.Fatalf("fault add --rate: %d %q %q", status, out, errOut)
	}
	eventually.True(t, "a connection beyond the rate refused with 421 4.7.0", func() bool {
		c, err := smtp.Dial(svc.SMTPAddr())
		if err == nil {
			c.Quit()
		}
		return smtpCode(err) == 421 && strings.Contains(err.Error(), "slow down")
	})
}

// TestInboxGreylistFromTheCommandLine: `inbox fault --greylist`, with no
// reply, refuses a sender's first delivery and its retries with 451 4.7.1
// until the time has passed, then takes it.
func TestInboxGreylistFromTheCommandLine(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	env := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_TOKEN": in.Token}
	status, out, errOut := runBinary(t, env, "inbox", "fault", "--command", "RCPT", "--greylist", "2s", "--priority", "5", "--json")
	var rule map[string]any
	if err := json.Unmarshal([]byte(out), &rule); status != 0 || err != nil || rule["greylist"] != "2s" || rule["priority"] != 5.0 {
		t.Fatalf("inbox fault --greylist: %d %q %q", status, out, errOut)
	}
	first := time.Now()
	for i := range 2 {
		err := smtp.SendMail(svc.SMTPAddr(), nil, "app@shop.example", []string{in.Address}, []byte(faultMail))
		if smtpCode(err) != 451 || !strings.Contains(err.Error(), "4.7.1") {
			t.Fatalf("delivery %d within the greylisting: %v, want 451 4.7.1", i+1, err)
		}
	}
	// Retried as a sender would, until taken: the rule's time, not the
	// test's, says when.
	eventually.True(t, "a retry after the greylisting taken", func() bool {
		err := smtp.SendMail(svc.SMTPAddr(), nil, "app@shop.example", []string{in.Address}, []byte(faultMail))
		if err != nil && smtpCode(err) != 451 {
			t.Fatalf("a retry: %v, want 451 or taken", err)
		}
		return err == nil
	})
	if since := time.Since(first); since < 2*time.Second {
		t.Errorf("taken %v after the first delivery; the rule says 2s", since)
	}
	status, out, errOut = runBinary(t, env, "inbox", "faults")
	rows := tableRows(out)
	if status != 0 || len(rows) != 2 || rows[1][3] != "greylist=2s" {
		t.Errorf("inbox faults: %d %q %q", status, out, errOut)
	}
}

// TestServiceFaultFlagsAreCheckedFirst: what the service would refuse is
// refused before it is called (exit status 2, one line on stderr).
func TestServiceFaultFlagsAreCheckedFirst(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	admin := map[string]string{"TEMPMAIL_SERVER": srv.URL, "TEMPMAIL_API_TOKEN": "T"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fault", "add", "--reply", "421"}, "tempmail fault add: --command is required: one of CONNECT, EHLO, MAIL, RCPT, DATA, AFTER_DATA\n"},
		{[]string{"fault", "add", "--command", "QUIT", "--reply", "421"}, "tempmail fault add: --command \"QUIT\" is not one of CONNECT, EHLO, MAIL, RCPT, DATA, AFTER_DATA\n"},
		{[]string{"fault", "add", "--command", "MAIL", "--greylist", "1m"}, "tempmail fault add: --greylist acts at RCPT"},
		{[]string{"fault", "add", "--command", "RCPT", "--rate", "10"}, "tempmail fault add: --rate acts at CONNECT or MAIL"},
		{[]string{"fault", "add", "--command", "CONNECT", "--rate", "10", "--times", "2"},
			"tempmail fault add: give at most one of --times, --every, --fraction, --greylist and --rate\n"},
		{[]string{"fault", "add", "--command", "MAIL", "--reply", "451", "--to", "a@b"}, "tempmail fault add: --to matches the recipient, known from RCPT on"},
		{[]string{"fault", "add", "--command", "CONNECT", "--reply", "421", "--client", "nowhere"},
			"tempmail fault add: --client \"nowhere\" is neither an IP address nor a prefix such as 192.0.2.0/24\n"},
		{[]string{"fault", "add", "--command", "CONNECT", "--reply", "421", "--priority", "-1001"}, "tempmail fault add: --priority must be from -1000 to 1000\n"},
		{[]string{"fault", "delete"}, "tempmail fault delete: give the rule's id, one argument"},
		{[]string{"attempts", "--since", "yesterday"}, "tempmail attempts: --since \"yesterday\" is neither a duration ago"},
		{[]string{"fault"}, "usage: tempmail fault add"},
	} {
		status, out, errOut := runCLI(admin, c.args...)
		if status != 2 || out != "" || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%v: %d %q\n got stderr %q\nwant stderr %q", c.args, status, out, errOut, c.want)
		}
	}
	noToken := map[string]string{"TEMPMAIL_SERVER": srv.URL}
	for _, args := range [][]string{{"fault", "add", "--command", "CONNECT", "--reply", "421"}, {"fault", "list"}, {"fault", "delete", "x"}, {"attempts"}} {
		if status, out, errOut := runCLI(noToken, args...); status != 2 || out != "" ||
			!strings.Contains(errOut, "--api-token (or TEMPMAIL_API_TOKEN) is required") {
			t.Errorf("%v without a credential: %d %q %q", args, status, out, errOut)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests made, want none", n)
	}
	// What the service accepts passes, to the service.
	for _, args := range [][]string{
		{"fault", "add", "--command", "RCPT", "--greylist", "30s", "--to", "*@tempmail.test", "--client", "192.0.2.0/24", "--priority", "10"},
		{"fault", "add", "--command", "MAIL", "--rate", "100"},
		{"fault", "add", "--command", "DATA", "--delay", "5s"},
	} {
		if status, _, errOut := runCLI(admin, args...); status != 2 || !strings.Contains(errOut, "418") {
			t.Errorf("%v: %d %q, want the service's answer", args, status, errOut)
		}
	}
	if status, _, errOut := runCLI(map[string]string{"TEMPMAIL_SERVER": srv.URL, "TEMPMAIL_TOKEN": "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
		"inbox", "fault", "--command", "RCPT", "--greylist", "30s"); status != 2 || !strings.Contains(errOut, "418") {
		t.Errorf("inbox fault --greylist: %d %q, want the service's answer", status, errOut)
	}
}
