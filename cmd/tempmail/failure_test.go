package main

import (
	"net"
	"regexp"
	"strings"
	"testing"

	"tempmail/client"
)

// TestErrorsNameTheCallAndWhatToCheck: a failed call is said as the call
// (its method and URL, the token written as "…") and what to check: a
// --server with a path too many gives the service's 404 or 405, which
// says nothing of --server on its own; nothing listening names the
// address tried.
func TestErrorsNameTheCallAndWhatToCheck(t *testing.T) {
	t.Parallel()
	_, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	refused := "; is the service running at " + closed + " (--server, TEMPMAIL_SERVER)?\n"
	for _, c := range []struct {
		name string
		args []string
		want string // all of stderr
	}{
		{"inbox new under /api", []string{"inbox", "new", "--server", base + "/api"},
			"tempmail inbox new: POST " + base + "/api/inboxes/: Method \"POST\" not allowed. (HTTP 405); " + serverHint + "\n"},
		{"inbox new under another path", []string{"inbox", "new", "--server", base + "/tempmail"},
			"tempmail inbox new: POST " + base + "/tempmail/inboxes/: Not found (HTTP 404); " + serverHint + "\n"},
		{"wait under /api", []string{"wait", "--server", base + "/api", "--token", in.Token, "--timeout", "0s"},
			"tempmail wait: GET " + base + "/api/inboxes/…/otp/: Not found. (HTTP 404); " + serverHint + "\n"},
		{"inbox delete under /api", []string{"inbox", "delete", "--server", base + "/api/", "--token", in.Token},
			"tempmail inbox delete: DELETE " + base + "/api/inboxes/…/: Not found. (HTTP 404); " + serverHint + "\n"},
		{"tenant list under /api", []string{"tenant", "list", "--server", base + "/api", "--api-token", "not-the-api-token"},
			"tempmail tenant list: GET " + base + "/api/api/tenants/: Not found. (HTTP 404); " + serverHint + "\n"},
		{"inbox new, nothing there", []string{"inbox", "new", "--server", closed},
			"tempmail inbox new: POST " + closed + "/inboxes/: dial tcp " + strings.TrimPrefix(closed, "http://") + ": connect: connection refused" + refused},
		{"wait, nothing there", []string{"wait", "--server", closed, "--token", in.Token, "--timeout", "0s"},
			"tempmail wait: GET " + closed + "/inboxes/…/otp/: dial tcp " + strings.TrimPrefix(closed, "http://") + ": connect: connection refused" + refused},
		{"a key refused", []string{"wait", "--server", base, "--token", in.Token, "--timeout", "0s", "--key", "tm_nosuchkey"},
			"tempmail wait: GET " + base + "/inboxes/…/otp/: Invalid key: unknown, revoked or expired. (HTTP 401); check the key in --key\n"},
		{"an API token refused", []string{"tenant", "list", "--server", base, "--api-token", "wrong"},
			"tempmail tenant list: GET " + base + "/api/tenants/: Invalid token. (HTTP 401); check the API token in --api-token\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			status, out, errOut := runCLI(nil, c.args...)
			if status != 2 || out != "" || errOut != c.want {
				t.Errorf("%d %q\n got stderr %q\nwant stderr %q", status, out, errOut, c.want)
			}
			if strings.Contains(errOut, in.Token) {
				t.Errorf("the token is shown: %q", errOut)
			}
		})
	}
}

// TestEveryCommandSaysAMissingInboxAlike: an inbox gone (deleted,
// expired, never made) is said in the same words by wait (an error) and
// by inbox delete (done already).
func TestEveryCommandSaysAMissingInboxAlike(t *testing.T) {
	t.Parallel()
	_, base := startService(t, t.TempDir())
	in := createTokenInbox(t, base)
	env := map[string]string{"TEMPMAIL_SERVER": base, "TEMPMAIL_TOKEN": in.Token}
	if status, out, errOut := runCLI(env, "inbox", "delete"); status != 0 || errOut != "" {
		t.Fatalf("inbox delete: %d %q %q", status, out, errOut)
	}
	words := client.ErrNoInbox.Error()
	if status, out, errOut := runCLI(env, "inbox", "delete"); status != 0 || out != "the inbox was already gone: "+words+"\n" {
		t.Errorf("inbox delete again: %d %q %q", status, out, errOut)
	}
	for _, kind := range []string{"--otp", "--link", "--message"} {
		status, out, errOut := runCLI(env, "wait", kind, "--timeout", "0s")
		if want := "tempmail wait: GET " + base + "/inboxes/…/" + map[string]string{"--otp": "otp", "--link": "link", "--message": "latest"}[kind] +
			"/: " + words + "\n"; status != 2 || out != "" || errOut != want {
			t.Errorf("wait %s: %d %q %q, want stderr %q", kind, status, out, errOut, want)
		}
	}
}

// clientCommands are the commands of a running service's clients.
var clientCommands = [][]string{
	{"inbox", "new"}, {"inbox", "delete"}, {"wait"}, {"mcp"},
	{"tenant", "new"}, {"tenant", "list"}, {"tenant", "delete"}, {"key", "new"}, {"key", "revoke"},
}

// TestUsagesWriteFlagsAsTyped: every command's help shows its flags as
// users type them and the docs write them, --flag, and the same on every
// machine (a variable set is not shown as a default).
func TestUsagesWriteFlagsAsTyped(t *testing.T) {
	t.Parallel()
	oneDash := regexp.MustCompile(`(?m)^\s+-[a-z]`)
	env := map[string]string{"TEMPMAIL_SERVER": "http://mail.example.com", "TEMPMAIL_HTTP_ADDR": "0.0.0.0:80"}
	for _, cmd := range append(clientCommands, []string{"serve"}, []string{"rebuild"}, []string{"healthcheck"}) {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			t.Parallel()
			status, out, errOut := runCLI(nil, append(cmd, "--help")...)
			if status != 0 || errOut != "" || !strings.Contains(out, "\n  --") || oneDash.MatchString(out) {
				t.Errorf("%d %q\n%s", status, errOut, out)
			}
			if cmd[0] != "serve" && cmd[0] != "rebuild" && cmd[0] != "healthcheck" &&
				!strings.Contains(out, "  --server URL\n        the service's base URL (default "+defaultServer+"; env TEMPMAIL_SERVER)\n") {
				t.Errorf("--server is not shown with its default and its variable:\n%s", out)
			}
			if _, again, _ := runCLI(env, append(cmd, "-h")...); again != out {
				t.Errorf("the usage depends on the environment:\n%s\nand with %v:\n%s", out, env, again)
			}
		})
	}
}

// TestABadFlagIsOneLine: a flag that is not the command's, or a value it
// cannot take, is said in one line that names it as typed and where the
// usage is, not above a page of usage.
func TestABadFlagIsOneLine(t *testing.T) {
	t.Parallel()
	for _, cmd := range clientCommands {
		name := "tempmail " + strings.Join(cmd, " ")
		for _, c := range []struct{ args, want []string }{
			{[]string{"--no-such-flag"}, []string{name + ": unknown flag --no-such-flag"}},
			{[]string{"--server"}, []string{name + ": --server needs a value"}},
			{[]string{"--json=maybe"}, []string{name + `: invalid boolean value "maybe" for --json`, name + ": unknown flag --json"}},
		} {
			t.Run(name+" "+c.args[0], func(t *testing.T) {
				t.Parallel()
				status, out, errOut := runCLI(nil, append(cmd, c.args...)...)
				said := slicesAny(c.want, func(w string) bool { return strings.HasPrefix(errOut, w) })
				if status != 2 || out != "" || !said || strings.Count(errOut, "\n") != 1 ||
					!strings.HasSuffix(errOut, "; run '"+name+" --help' for usage\n") {
					t.Errorf("%d %q %q, want one line beginning with one of %q", status, out, errOut, c.want)
				}
			})
		}
	}
	status, out, errOut := runCLI(nil, "wait", "--timeout", "5")
	if want := "tempmail wait: invalid value \"5\" for --timeout: not a duration (such as 90s, 2m or 1h30m); run 'tempmail wait --help' for usage\n"; status != 2 || out != "" || errOut != want {
		t.Errorf("wait --timeout 5: %d %q %q, want %q", status, out, errOut, want)
	}
}

// slicesAny tells whether f holds for any of s.
func slicesAny(s []string, f func(string) bool) bool {
	for _, v := range s {
		if f(v) {
			return true
		}
	}
	return false
}
