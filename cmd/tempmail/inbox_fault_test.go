package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/smtp"
	"net/textproto"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"tempmail/client"
)

// The commands of an inbox's fault rules (faults.go): `tempmail inbox
// fault`, `inbox faults`, `inbox fault delete` and `inbox attempts`, run
// as the built binary against a service in process, with real SMTP
// deliveries (net/smtp) to the inbox.

// runBinary runs the built binary with args, in an environment of env
// alone beyond PATH and HOME (no TEMPMAIL_ variable of the machine's),
// and returns its exit status and what it printed.
func runBinary(t *testing.T, env map[string]string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		status = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return status, out.String(), errOut.String()
}

// tableRows splits what a table command printed into its rows, each into
// its columns (two spaces or more apart), the heading first.
func tableRows(out string) [][]string {
	var rows [][]string
	for line := range strings.Lines(strings.TrimRight(out, "\n")) {
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1))
	}
	return rows
}

// faultMail is the message the tests' sender sends.
const faultMail = "From: app@shop.example\r\nSubject: Your order 1041\r\n\r\nThanks for your order.\r\n"

// TestInboxFaultFailsTheDeliveriesItSays: a rule added with `inbox fault`
// (which prints its id) makes the next two deliveries to the inbox get its
// 451 at RCPT, and the third is stored; `inbox faults` lists the rule with
// how many times it acted, `inbox attempts` shows the three attempts,
// newest first, with the rule that acted and the message stored, and
// `inbox fault delete` ends the rule (and says so when it is gone already).
func TestInboxFaultFailsTheDeliveriesItSays(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	env := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_TOKEN": in.Token}

	status, out, errOut := runBinary(t, env, "inbox", "fault", "--command", "RCPT", "--reply", "451 4.7.1 try again later", "--times", "2")
	id := strings.TrimSuffix(out, "\n")
	if status != 0 || errOut != "" || id == "" || strings.ContainsAny(id, " \t\n") {
		t.Fatalf("inbox fault: %d %q %q, want the rule's id alone", status, out, errOut)
	}

	// The rule as the service shows it, in the list and with --json.
	status, out, errOut = runBinary(t, env, "inbox", "faults")
	rows := tableRows(out)
	wantHead := []string{"id", "command", "reply", "attempts", "delay", "from", "fired", "expires"}
	if status != 0 || errOut != "" || len(rows) != 2 || strings.Join(rows[0], "|") != strings.Join(wantHead, "|") ||
		len(rows[1]) != len(wantHead) || strings.Join(rows[1][:7], "|") != id+"|RCPT|451 4.7.1 try again later|times=2|-|-|0" {
		t.Fatalf("inbox faults: %d %q %q", status, out, errOut)
	}
	status, out, errOut = runBinary(t, env, "inbox", "faults", "--json")
	var rules []map[string]any
	if err := json.Unmarshal([]byte(out), &rules); status != 0 || err != nil || len(rules) != 1 {
		t.Fatalf("inbox faults --json: %d %q %q (%v)", status, out, errOut, err)
	}
	for k, v := range map[string]any{"id": id, "command": "RCPT", "reply": "451 4.7.1 try again later", "times": 2.0, "matched": 0.0, "fired": 0.0} {
		if rules[0][k] != v {
			t.Errorf("inbox faults --json: %s is %v, want %v (%s)", k, rules[0][k], v, out)
		}
	}
	for _, k := range []string{"expires_at", "created_at"} {
		if _, ok := rules[0][k]; !ok {
			t.Errorf("inbox faults --json: no %s in %s", k, out)
		}
	}

	// Three deliveries: the first two meet the rule at RCPT, the third is
	// taken.
	for i := range 3 {
		err := smtp.SendMail(svc.SMTPAddr(), nil, "app@shop.example", []string{in.Address}, []byte(faultMail))
		var te *textproto.Error
		switch {
		case i < 2 && !(errors.As(err, &te) && te.Code == 451 && te.Msg == "4.7.1 try again later"):
			t.Fatalf("delivery %d: %v, want 451 4.7.1 try again later", i+1, err)
		case i == 2 && err != nil:
			t.Fatalf("delivery 3: %v, want it taken", err)
		}
	}
	list := listMessages(t, base, in.Token)
	if len(list) != 1 || list[0].Subject != "Your order 1041" {
		t.Fatalf("the inbox holds %+v, want the third delivery alone", list)
	}

	status, out, errOut = runBinary(t, env, "inbox", "attempts")
	rows = tableRows(out)
	if status != 0 || errOut != "" || len(rows) != 4 || strings.Join(rows[0], "|") != "at|client|from|command|code|rule|message" {
		t.Fatalf("inbox attempts: %d %q %q, want a heading and three attempts", status, out, errOut)
	}
	at := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
	for i, want := range [][]string{
		{"127.0.0.1", "app@shop.example", "AFTER_DATA", "250", "-", list[0].ID},
		{"127.0.0.1", "app@shop.example", "RCPT", "451", id, "-"},
		{"127.0.0.1", "app@shop.example", "RCPT", "451", id, "-"},
	} {
		row := rows[i+1]
		if len(row) != 7 || !at.MatchString(row[0]) || strings.Join(row[1:], "|") != strings.Join(want, "|") {
			t.Errorf("inbox attempts, row %d: %q, want [at %s]\n%s", i+1, row, strings.Join(want, " "), out)
		}
	}
	status, out, errOut = runBinary(t, env, "inbox", "attempts", "--json")
	var attempts []map[string]any
	if err := json.Unmarshal([]byte(out), &attempts); status != 0 || err != nil || len(attempts) != 3 {
		t.Fatalf("inbox attempts --json: %d %q %q (%v)", status, out, errOut, err)
	}
	for i, want := range []map[string]any{
		{"command": "AFTER_DATA", "code": 250.0, "rule_id": nil, "message_id": list[0].ID, "from": "app@shop.example", "client": "127.0.0.1"},
		{"command": "RCPT", "code": 451.0, "rule_id": id, "message_id": nil, "reply": "451 4.7.1 try again later"},
		{"command": "RCPT", "code": 451.0, "rule_id": id, "message_id": nil, "reply": "451 4.7.1 try again later"},
	} {
		for k, v := range want {
			if got, ok := attempts[i][k]; !ok || got != v {
				t.Errorf("inbox attempts --json, attempt %d: %s is %v, want %v", i+1, k, got, v)
			}
		}
		if _, ok := attempts[i]["at"]; !ok {
			t.Errorf("inbox attempts --json, attempt %d: no at", i+1)
		}
	}

	// It acted twice; deleted, it is gone from the list.
	status, out, _ = runBinary(t, env, "inbox", "faults")
	if rows := tableRows(out); status != 0 || len(rows) != 2 || len(rows[1]) < 7 || rows[1][6] != "2" {
		t.Errorf("inbox faults after the deliveries: %d %q, want fired 2", status, out)
	}
	status, out, errOut = runBinary(t, env, "inbox", "fault", "delete", id)
	if status != 0 || out != "deleted the rule: deliveries meet it no more\n" || errOut != "" {
		t.Errorf("inbox fault delete: %d %q %q", status, out, errOut)
	}
	status, out, errOut = runBinary(t, env, "inbox", "fault", "delete", id)
	if status != 0 || out != "the rule was already gone: "+client.ErrNoFault.Error()+"\n" || errOut != "" {
		t.Errorf("inbox fault delete again: %d %q %q", status, out, errOut)
	}
	status, out, _ = runBinary(t, env, "inbox", "faults")
	if status != 0 || len(tableRows(out)) != 1 {
		t.Errorf("inbox faults after the delete: %d %q, want the heading alone", status, out)
	}
	if err := smtp.SendMail(svc.SMTPAddr(), nil, "app@shop.example", []string{in.Address}, []byte(faultMail)); err != nil {
		t.Errorf("a delivery after the delete: %v", err)
	}
}

// TestInboxFaultOfASenderAndAClose: --from limits a rule to the senders
// that match it, and --close closes the connection at the command instead
// of replying; --json prints the whole rule.
func TestInboxFaultOfASenderAndAClose(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	env := map[string]string{"TEMPMAIL_SERVER": base}
	status, out, errOut := runBinary(t, env, "inbox", "fault", "--token", in.Token, "--command", "data", "--close",
		"--from", "*@shop.example", "--expires-in", "10m", "--json")
	var rule struct {
		ID, Command, From string
		Close             bool
		Reply             string
	}
	if err := json.Unmarshal([]byte(out), &rule); status != 0 || errOut != "" || err != nil || rule.ID == "" ||
		rule.Command != "DATA" || !rule.Close || rule.From != "*@shop.example" {
		t.Fatalf("inbox fault --json: %d %q %q (%v)", status, out, errOut, err)
	}
	if err := smtp.SendMail(svc.SMTPAddr(), nil, "news@other.example", []string{in.Address}, []byte(faultMail)); err != nil {
		t.Errorf("a sender the rule does not match: %v, want it taken", err)
	}
	if err := smtp.SendMail(svc.SMTPAddr(), nil, "app@shop.example", []string{in.Address}, []byte(faultMail)); err == nil {
		t.Errorf("a sender the rule matches: taken, want the connection closed at DATA")
	}
	if n := len(listMessages(t, base, in.Token)); n != 1 {
		t.Errorf("the inbox holds %d messages, want 1", n)
	}
	status, out, errOut = runBinary(t, env, "inbox", "attempts", "--token", in.Token)
	rows := tableRows(out)
	if status != 0 || errOut != "" || len(rows) != 3 ||
		len(rows[1]) != 7 || rows[1][2] != "app@shop.example" || rows[1][3] != "DATA" || rows[1][5] != rule.ID || rows[1][6] != "-" ||
		len(rows[2]) != 7 || rows[2][2] != "news@other.example" || rows[2][3] != "AFTER_DATA" || rows[2][4] != "250" || rows[2][5] != "-" {
		t.Errorf("inbox attempts: %d %q %q", status, out, errOut)
	}
}

// TestInboxFaultRefusalsAreSaid: what the service refuses (an eleventh
// rule, a command it cannot act at) and an inbox that is not there are
// said as every client command says a failed call: the call, the token
// written as "…", the service's words; exit status 2. A rule asked to
// outlive its inbox ends with it.
func TestInboxFaultRefusalsAreSaid(t *testing.T) {
	t.Parallel()
	_, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	env := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_TOKEN": in.Token}
	add := []string{"inbox", "fault", "--command", "RCPT", "--reply", "450 4.2.1 try again later"}
	for i := range 10 {
		if status, out, errOut := runCLI(env, add...); status != 0 || errOut != "" {
			t.Fatalf("rule %d: %d %q %q", i+1, status, out, errOut)
		}
	}
	call := "tempmail inbox fault: POST " + base + "/inboxes/…/faults/: "
	status, out, errOut := runCLI(env, add...)
	if want := call + "the inbox has 10 fault rules, the most it may have: delete one first (HTTP 403)\n"; status != 2 || out != "" || errOut != want {
		t.Errorf("an eleventh rule: %d %q\n got stderr %q\nwant stderr %q (no credential to check)", status, out, errOut, want)
	}
	if status, out, _ := runCLI(env, "inbox", "faults"); status != 0 || len(tableRows(out)) != 11 {
		t.Errorf("inbox faults: %d %q, want ten rules", status, out)
	}

	other := createTokenInbox(t, base)
	status, out, errOut = runCLI(env, "inbox", "fault", "--token", other.Token, "--command", "RCPT", "--reply", "550 5.1.1 no such user",
		"--expires-in", "48h", "--json")
	var rule struct {
		ExpiresAt string `json:"expires_at"`
	}
	if err := json.Unmarshal([]byte(out), &rule); status != 0 || errOut != "" || err != nil || rule.ExpiresAt != other.ExpiresAt {
		t.Errorf("a rule asked to outlive its inbox: %d %q %q, want it to expire with the inbox, at %s", status, out, errOut, other.ExpiresAt)
	}
	// The service's words for what it refuses, where the flags let it be asked.
	status, out, errOut = runCLI(env, "inbox", "fault", "--token", other.Token, "--command", "RCPT", "--reply", "451 5.7.1 mixed classes")
	if want := call + "reply's enhanced code 5.7.1 must be of the code's class (4.x.x) (HTTP 400)\n"; status != 2 || out != "" || errOut != want {
		t.Errorf("a reply the service refuses: %d %q\n got stderr %q\nwant stderr %q", status, out, errOut, want)
	}

	gone := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_TOKEN": "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
	words := client.ErrNoInbox.Error()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inbox", "fault", "--command", "RCPT", "--reply", "451"}, "tempmail inbox fault: POST " + base + "/inboxes/…/faults/: " + words + "\n"},
		{[]string{"inbox", "faults"}, "tempmail inbox faults: GET " + base + "/inboxes/…/faults/: " + words + "\n"},
		{[]string{"inbox", "fault", "delete", "0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60"},
			"tempmail inbox fault delete: DELETE " + base + "/inboxes/…/faults/0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60/: " + words + "\n"},
		{[]string{"inbox", "attempts"}, "tempmail inbox attempts: GET " + base + "/inboxes/…/attempts/: " + words + "\n"},
	} {
		if status, out, errOut := runCLI(gone, c.args...); status != 2 || out != "" || errOut != c.want {
			t.Errorf("%v of an inbox not there: %d %q\n got stderr %q\nwant stderr %q", c.args, status, out, errOut, c.want)
		}
	}
}

// TestInboxFaultChecksItsFlagsFirst: a value the service would refuse, or
// that cannot be what was meant, stops the command with exit status 2 and
// one line on stderr before any request is made.
func TestInboxFaultChecksItsFlagsFirst(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	env := map[string]string{"TEMPMAIL_SERVER": srv.URL, "TEMPMAIL_TOKEN": "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
	for _, c := range []struct {
		name string
		args []string
		want string // all of stderr
	}{
		{"no command", []string{"--reply", "451 4.7.1 later"},
			"tempmail inbox fault: --command is required: one of RCPT, DATA, AFTER_DATA\n"},
		{"a command not in the set", []string{"--command", "QUIT", "--reply", "451"},
			"tempmail inbox fault: --command \"QUIT\" is not one of RCPT, DATA, AFTER_DATA\n"},
		{"a command before the recipient", []string{"--command", "ehlo", "--reply", "421 4.3.2 busy"},
			"tempmail inbox fault: --command EHLO comes before the recipient is known: an inbox's rule acts at RCPT, DATA, AFTER_DATA\n"},
		{"a reply at DATA", []string{"--command", "DATA", "--reply", "451 4.3.0 later"},
			"tempmail inbox fault: the service answers DATA with 354 before the message comes: give --reply with --command AFTER_DATA, " +
				"or --close to close the connection in the middle of the message\n"},
		{"times and every", []string{"--command", "RCPT", "--reply", "451", "--times", "2", "--every", "3"},
			"tempmail inbox fault: give at most one of --times, --every, --fraction and --greylist\n"},
		{"every and a fraction", []string{"--command", "RCPT", "--reply", "451", "--every", "3", "--fraction", "0.5"},
			"tempmail inbox fault: give at most one of --times, --every, --fraction and --greylist\n"},
		{"a negative seed", []string{"--command", "RCPT", "--reply", "451", "--fraction", "0.5", "--seed", "-1"},
			"tempmail inbox fault: invalid value \"-1\" for --seed: not an integer from 0 to 18446744073709551615"},
		{"no reply", []string{"--command", "RCPT"},
			"tempmail inbox fault: --reply is required (or --close): what the service answers at RCPT, such as \"451 4.7.1 try again later\"\n"},
		{"a 2xx reply", []string{"--command", "RCPT", "--reply", "250 OK"},
			"tempmail inbox fault: --reply \"250 OK\" does not begin with a 4xx or 5xx code: \"CODE [X.Y.Z] text\", such as \"451 4.7.1 try again later\"\n"},
		{"a reply of no code", []string{"--command", "RCPT", "--reply", "try again later"},
			"tempmail inbox fault: --reply \"try again later\" does not begin with a 4xx or 5xx code: \"CODE [X.Y.Z] text\", such as \"451 4.7.1 try again later\"\n"},
		{"a code of four digits", []string{"--command", "RCPT", "--reply", "4511 later"},
			"tempmail inbox fault: --reply \"4511 later\" does not begin with a 4xx or 5xx code"},
		{"a reply and a close", []string{"--command", "DATA", "--close", "--reply", "421 4.3.2 bye"},
			"tempmail inbox fault: --close closes the connection instead of replying: give --reply or --close, not both\n"},
		{"a delay too long", []string{"--command", "RCPT", "--reply", "451", "--delay", "61s"},
			"tempmail inbox fault: --delay must be from 0s to 60s\n"},
		{"a delay of no unit", []string{"--command", "RCPT", "--reply", "451", "--delay", "5"},
			"tempmail inbox fault: invalid value \"5\" for --delay: not a duration (such as 90s, 2m or 1h30m); run 'tempmail inbox fault --help' for usage\n"},
		{"a fraction of 0", []string{"--command", "RCPT", "--reply", "451", "--fraction", "0"},
			"tempmail inbox fault: invalid value \"0\" for --fraction: not a number more than 0 and at most 1; run 'tempmail inbox fault --help' for usage\n"},
		{"a fraction above 1", []string{"--command", "RCPT", "--reply", "451", "--fraction", "1.5"},
			"tempmail inbox fault: invalid value \"1.5\" for --fraction: not a number more than 0 and at most 1"},
		{"a seed alone", []string{"--command", "RCPT", "--reply", "451", "--seed", "7"},
			"tempmail inbox fault: --seed applies to --fraction: give both\n"},
		{"negative times", []string{"--command", "RCPT", "--reply", "451", "--times", "-1"},
			"tempmail inbox fault: --times must be 0 or more\n"},
		{"a negative expiry", []string{"--command", "RCPT", "--reply", "451", "--expires-in", "-1h"},
			"tempmail inbox fault: --expires-in must be more than 0s"},
		{"greylisting not at RCPT", []string{"--command", "AFTER_DATA", "--greylist", "30s"},
			"tempmail inbox fault: --greylist acts at RCPT, where the client, the sender and the recipient are known: give --command RCPT\n"},
		{"greylisting and times", []string{"--command", "RCPT", "--greylist", "30s", "--times", "2"},
			"tempmail inbox fault: give at most one of --times, --every, --fraction and --greylist\n"},
		{"greylisting and a close", []string{"--command", "RCPT", "--greylist", "30s", "--close"},
			"tempmail inbox fault: --greylist and --rate reply; they do not close: leave out --close\n"},
		{"greylisting too long", []string{"--command", "RCPT", "--greylist", "2h"},
			"tempmail inbox fault: --greylist must be from 0s to 1h\n"},
		{"a priority too high", []string{"--command", "RCPT", "--reply", "451", "--priority", "1001"},
			"tempmail inbox fault: --priority must be from -1000 to 1000\n"},
		{"DATA with nothing to do", []string{"--command", "DATA"},
			"tempmail inbox fault: at DATA a rule closes the connection in the middle of the message (--close) or stalls it (--delay)\n"},
		{"the service's flags", []string{"--command", "RCPT", "--reply", "451", "--to", "a@b"},
			"tempmail inbox fault: unknown flag --to"},
		{"an argument", []string{"--command", "RCPT", "--reply", "451", "now"},
			"tempmail inbox fault: unexpected argument \"now\"; run 'tempmail inbox fault --help' for usage\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			status, out, errOut := runCLI(env, append([]string{"inbox", "fault"}, c.args...)...)
			if status != 2 || out != "" || !strings.HasPrefix(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v: %d %q\n got stderr %q\nwant stderr %q", c.args, status, out, errOut, c.want)
			}
		})
	}
	noToken := map[string]string{"TEMPMAIL_SERVER": srv.URL}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inbox", "fault", "--command", "RCPT", "--reply", "451"}, "tempmail inbox fault: --token (or TEMPMAIL_TOKEN) is required"},
		{[]string{"inbox", "faults"}, "tempmail inbox faults: --token (or TEMPMAIL_TOKEN) is required"},
		{[]string{"inbox", "fault", "delete", "x"}, "tempmail inbox fault delete: --token (or TEMPMAIL_TOKEN) is required"},
		{[]string{"inbox", "attempts"}, "tempmail inbox attempts: --token (or TEMPMAIL_TOKEN) is required"},
		{[]string{"inbox", "fault", "delete"}, "tempmail inbox fault delete: give the rule's id, one argument"},
	} {
		if status, out, errOut := runCLI(noToken, c.args...); status != 2 || out != "" || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%v: %d %q %q, want %q", c.args, status, out, errOut, c.want)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests made, want none", n)
	}
}

// TestInboxFaultHelpGoesToStdout: each command's help, on stdout with
// exit status 0, names its flags as users type them.
func TestInboxFaultHelpGoesToStdout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"inbox", "fault", "-h"}, []string{"usage: tempmail inbox fault --command CMD", "--command command", "--reply reply",
			"--times N", "--every N", "--fraction number", "--seed integer", "--delay duration", "--close", "--from address",
			"--expires-in duration", "--json", "--token token", "env TEMPMAIL_TOKEN"}},
		{[]string{"inbox", "fault", "delete", "--help"}, []string{"usage: tempmail inbox fault delete ID", "--token token"}},
		{[]string{"inbox", "faults", "--help"}, []string{"usage: tempmail inbox faults", "--json"}},
		{[]string{"inbox", "attempts", "-h"}, []string{"usage: tempmail inbox attempts", "--json"}},
		{[]string{"inbox", "--help"}, []string{"tempmail inbox fault --command CMD", "tempmail inbox faults", "tempmail inbox fault delete ID",
			"tempmail inbox attempts"}},
		{[]string{"help"}, []string{"inbox fault ", "inbox faults ", "inbox attempts"}},
	} {
		status, out, errOut := runCLI(map[string]string{"TEMPMAIL_TOKEN": "SECRETTOKENSECRETTOKENABCD"}, c.args...)
		if status != 0 || errOut != "" || strings.Contains(out, "SECRETTOKEN") {
			t.Errorf("%v: %d %q %q", c.args, status, out, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: stdout lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}
