package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/smtp"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tempmail/service/servicetest"
)

// TestMCPFromOutside: the SDK's own client, over streamable HTTP to /mcp of
// a running service and over stdio to `tempmail mcp` (the built binary, as
// a host starts it, with the service's URL in TEMPMAIL_SERVER: the MCP
// Inspector takes --server for itself), lists the eleven tools, makes an
// inbox, gets the code and the link of the mail it receives, adds a fault
// rule that refuses the next delivery and reads what it met, deletes the
// rule, and deletes the inbox, twice.
func TestMCPFromOutside(t *testing.T) {
	t.Parallel()
	svc, base := startService(t, t.TempDir())
	for _, c := range []struct {
		name      string
		transport func() mcp.Transport
		version   string // of the service in process, of the binary built stamped
	}{
		{"http", func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: base + "/mcp"} }, buildVersion()},
		{"stdio", func() mcp.Transport {
			cmd := exec.Command(binary, "mcp")
			cmd.Env = append(os.Environ(), "TEMPMAIL_SERVER="+base)
			return &mcp.CommandTransport{Command: cmd}
		}, testVersion},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, c.transport(), nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer s.Close()
			if got := s.InitializeResult().ServerInfo; got.Name != "tempmail" || got.Version != c.version {
				t.Errorf("server %+v, want tempmail %s", got, c.version)
			}
			list, err := s.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if want := []string{"add_fault", "create_inbox", "delete_fault", "delete_inbox", "get_code", "get_link", "list_attempts",
				"list_faults", "list_messages", "read_message", "wait_for_message"}; !slices.Equal(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}

			var inbox struct{ Address, Token string }
			tool(t, ctx, s, "create_inbox", nil, &inbox)
			codes := make(chan string, 1)
			go func() {
				var code struct{ Code string }
				tool(t, ctx, s, "get_code", map[string]any{"token": inbox.Token, "timeout_seconds": 30}, &code)
				codes <- code.Code
			}()
			servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", inbox.Address, cliMail)
			if code := <-codes; code != "482913" {
				t.Errorf("get_code: %q", code)
			}
			var link struct{ Link, Text string }
			tool(t, ctx, s, "get_link", map[string]any{"token": inbox.Token, "pattern": "verify"}, &link)
			if link.Link != "https://shop.example/verify?t=1&u=2" || link.Text != "Verify" {
				t.Errorf("get_link: %+v", link)
			}

			// A rule refuses the next delivery at RCPT; the attempt log
			// says so, and the rule's count.
			var rule struct{ ID, Command, Reply string }
			tool(t, ctx, s, "add_fault", map[string]any{"token": inbox.Token, "command": "RCPT", "reply": "550 5.1.1 no such user",
				"times": 1}, &rule)
			if rule.ID == "" || rule.Reply != "550 5.1.1 no such user" {
				t.Errorf("add_fault: %+v", rule)
			}
			if err := smtp.SendMail(svc.SMTPAddr(), nil, "shop@example.com", []string{inbox.Address}, []byte(cliMail)); smtpCode(err) != 550 {
				t.Errorf("a delivery the rule refuses: %v", err)
			}
			var attempts struct {
				Attempts []struct {
					Command string
					RuleID  string `json:"rule_id"`
					Code    int
				}
			}
			tool(t, ctx, s, "list_attempts", map[string]any{"token": inbox.Token}, &attempts)
			if len(attempts.Attempts) != 1 || attempts.Attempts[0].Code != 550 || attempts.Attempts[0].RuleID != rule.ID {
				t.Errorf("list_attempts: %+v", attempts)
			}
			var rules struct {
				Rules []struct {
					ID    string
					Fired int
				}
			}
			tool(t, ctx, s, "list_faults", map[string]any{"token": inbox.Token}, &rules)
			if len(rules.Rules) != 1 || rules.Rules[0].ID != rule.ID || rules.Rules[0].Fired != 1 {
				t.Errorf("list_faults: %+v", rules)
			}
			for _, gone := range []bool{false, true} {
				var deleted struct {
					Deleted     bool
					AlreadyGone bool `json:"already_gone"`
				}
				tool(t, ctx, s, "delete_fault", map[string]any{"token": inbox.Token, "rule_id": rule.ID}, &deleted)
				if !deleted.Deleted || deleted.AlreadyGone != gone {
					t.Errorf("delete_fault: %+v, want already_gone %v", deleted, gone)
				}
			}

			for _, gone := range []bool{false, true} {
				var deleted struct {
					Deleted     bool
					AlreadyGone bool `json:"already_gone"`
				}
				tool(t, ctx, s, "delete_inbox", map[string]any{"token": inbox.Token}, &deleted)
				if !deleted.Deleted || deleted.AlreadyGone != gone {
					t.Errorf("delete_inbox: %+v, want already_gone %v", deleted, gone)
				}
			}
		})
	}
}

// tool calls a tool that must succeed and decodes its structured result.
func tool(t *testing.T, ctx context.Context, s *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || json.Unmarshal(b, out) != nil {
		t.Errorf("%s: error %v, %s %v", name, res.IsError, b, res.Content)
	}
}

// TestMCPCommandEndsWithItsInput: `tempmail mcp` serves until its host
// closes stdin, then exits 0; a --server that is no URL stops it at once.
func TestMCPCommandEndsWithItsInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, server string
		status       int
		stderr       string
	}{
		{"stdin closed", "http://127.0.0.1:1", 0, ""},
		{"not a URL", "127.0.0.1:8080", 2, "tempmail mcp: server \"127.0.0.1:8080\" is not a base URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			status := runMCP([]string{"--server", c.server}, func(string) string { return "" },
				io.NopCloser(strings.NewReader("")), nopCloser{&out}, &errOut)
			if status != c.status || !strings.Contains(errOut.String(), c.stderr) || (c.stderr == "" && errOut.Len() > 0) {
				t.Errorf("status %d, stderr %q; want %d, %q", status, errOut.String(), c.status, c.stderr)
			}
		})
	}
}
