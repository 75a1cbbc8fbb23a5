package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tempmail/client"
)

// The tools against a running service are tested in api (mcp_test.go, over
// /mcp) and cmd/tempmail (over HTTP and stdio); these are their pure parts.

// TestInputSchemasAreBounded: every string a tool takes has a length
// bound, every number its range, and timeout_seconds its default, so that
// a host shows the agent the limits and the SDK refuses what is beyond
// them.
func TestInputSchemasAreBounded(t *testing.T) {
	t.Parallel()
	tools := NewTools("test")
	if len(tools.inputs) != 11 {
		t.Errorf("%d input schemas, want 11", len(tools.inputs))
	}
	for name, s := range tools.inputs {
		if s.AdditionalProperties == nil || s.AdditionalProperties.Not == nil { // false, as jsonschema writes it
			t.Errorf("%s: other properties are allowed", name)
		}
		for prop, p := range s.Properties {
			b, _ := json.Marshal(p)
			switch prop {
			case "timeout_seconds":
				if *p.Minimum != 0 || *p.Maximum != maxTimeout || string(p.Default) != "30" {
					t.Errorf("%s.%s: %s", name, prop, b)
				}
			case "close":
				if p.Type != "boolean" {
					t.Errorf("%s.%s: %s", name, prop, b)
				}
			case "times", "every", "fraction", "seed", "priority":
				if p.Minimum == nil || p.Maximum == nil || *p.Maximum <= *p.Minimum {
					t.Errorf("%s.%s has no range: %s", name, prop, b)
				}
			case "command", "delay", "greylist", "expires_in":
				if p.MaxLength == nil || *p.MaxLength != 16 {
					t.Errorf("%s.%s has no bound: %s", name, prop, b)
				}
			default:
				if p.MaxLength == nil || *p.MaxLength < 64 || *p.MaxLength > 512 {
					t.Errorf("%s.%s has no bound: %s", name, prop, b)
				}
			}
		}
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	n := func(i int) *int { return &i }
	for _, c := range []struct {
		in   *int
		want time.Duration
	}{{nil, 30 * time.Second}, {n(0), 0}, {n(5), 5 * time.Second}, {n(600), 60 * time.Second}, {n(-1), 0}} {
		if got := timeout(c.in); got != c.want {
			t.Errorf("timeout(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	if s, cut := cut("héllo", 2); s != "h" || !cut {
		t.Errorf("cut in a character: %q %v", s, cut)
	}
	if s, cut := cut("hello", 5); s != "hello" || cut {
		t.Errorf("no cut: %q %v", s, cut)
	}
}

// TestToolErrorsSayWhatIsWrong: the service's own words, without the
// request's URL (which holds the token).
func TestToolErrorsSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want string
	}{
		{&client.Error{Status: 404, Message: "Inbox not found"}, "Inbox not found"},
		{&url.Error{Op: "Get", URL: "http://x/inboxes/SECRET/otp/", Err: errors.New("connection refused")}, "connection refused"},
		{waitError(client.ErrTimeout, "code", nil), "no code matched within 30s"},
	} {
		if got := toolError(c.err).Error(); !strings.Contains(got, c.want) || strings.Contains(got, "SECRET") {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}

// session connects the SDK's own client to the tools in memory, bound to
// a client of no service: what is tested here never reaches it.
func session(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return sessionOf(t, "http://127.0.0.1:1")
}

// sessionOf is session with the tools calling the service at base.
func sessionOf(t *testing.T, base string) *mcp.ClientSession {
	t.Helper()
	c, err := client.New(base)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := NewTools("test").Server(c, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestSchemasHavePlainTypes: every type in what a tool takes and returns
// is one type, never an array and never null (issue 30: timeout_seconds
// was ["null","integer"], and the MCP Inspector's CLI, which turns "30"
// into a number only for a property typed exactly "integer", sent a
// string).
func TestSchemasHavePlainTypes(t *testing.T) {
	t.Parallel()
	list, err := session(t).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 11 {
		t.Errorf("%d tools", len(list.Tools))
	}
	var walk func(tool, path string, v any)
	walk = func(tool, path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if typ, ok := v["type"]; ok {
				if s, ok := typ.(string); !ok || s == "null" {
					t.Errorf("%s %s: type %v", tool, path, typ)
				}
			}
			for k, sub := range v {
				walk(tool, path+"/"+k, sub)
			}
		case []any:
			for i, sub := range v {
				walk(tool, fmt.Sprintf("%s/%d", path, i), sub)
			}
		}
	}
	for _, tool := range list.Tools {
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: schemas %v %v", tool.Name, tool.InputSchema, tool.OutputSchema)
		}
		walk(tool.Name, "inputSchema", tool.InputSchema)
		walk(tool.Name, "outputSchema", tool.OutputSchema)
		var in struct {
			Properties map[string]struct{ Type any }
		}
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &in); err != nil || strings.HasPrefix(tool.Name, "get_") && in.Properties["timeout_seconds"].Type != "integer" {
			t.Errorf("%s: %s", tool.Name, b)
		}
	}
}

// TestCapabilitiesAreToolsOnly: the server advertises tools, without
// listChanged, and no logging: it sends neither notification.
func TestCapabilitiesAreToolsOnly(t *testing.T) {
	t.Parallel()
	caps := session(t).InitializeResult().Capabilities
	b, _ := json.Marshal(caps)
	if string(b) != `{"tools":{}}` {
		t.Errorf("capabilities %s, want {\"tools\":{}}", b)
	}
}

// TestArgumentErrorsSayWhatIsWrongInWords: a call whose arguments the
// schema refuses is a tool error that names the argument and its bound,
// not the SDK's "maximum: 120/1 is greater than 60.000000".
func TestArgumentErrorsSayWhatIsWrongInWords(t *testing.T) {
	t.Parallel()
	s := session(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_code", map[string]any{"token": "T", "timeout_seconds": 120}, "timeout_seconds must be a whole number from 0 to 60, not 120"},
		{"get_link", map[string]any{"token": "T", "timeout_seconds": -1}, "timeout_seconds must be a whole number from 0 to 60, not -1"},
		{"wait_for_message", map[string]any{"token": "T", "timeout_seconds": "30"}, "timeout_seconds must be a whole number from 0 to 60"},
		{"wait_for_message", map[string]any{"token": "T", "timeout_seconds": 2.5}, "timeout_seconds must be a whole number from 0 to 60"},
		{"get_code", map[string]any{"token": strings.Repeat("A", 65)}, "token must be at most 64 characters, not 65"},
		{"get_code", map[string]any{"token": "T", "pattern": strings.Repeat("é", 513)}, "pattern must be at most 512 characters, not 513"},
		{"list_messages", map[string]any{"token": 7}, "token must be a string"},
		{"list_messages", map[string]any{}, "token is required"},
		{"read_message", map[string]any{"token": "T"}, "message_id is required"},
		{"list_messages", map[string]any{"token": "T", "extra": 1}, `unknown argument "extra": this tool takes token`},
		{"add_fault", map[string]any{"token": "T", "command": "EHLO", "reply": "421"}, `command must be one of RCPT, DATA, AFTER_DATA, not "EHLO"`},
		{"add_fault", map[string]any{"token": "T"}, "command is required"},
		{"add_fault", map[string]any{"token": "T", "command": "RCPT", "fraction": 1.5}, "fraction must be a number from 0 to 1, not 1.5"},
		{"add_fault", map[string]any{"token": "T", "command": "RCPT", "priority": 1001}, "priority must be a whole number from -1000 to 1000, not 1001"},
		{"add_fault", map[string]any{"token": "T", "command": "RCPT", "times": 2.5}, "times must be a whole number from 0 to 1000"},
		{"add_fault", map[string]any{"token": "T", "command": "DATA", "close": "yes"}, "close must be true or false"},
		{"add_fault", map[string]any{"token": "T", "command": "RCPT", "greylist": "thirty seconds"}, `greylist must be a duration such as "5s" or "10m", not "thirty seconds"`},
		{"delete_fault", map[string]any{"token": "T"}, "rule_id is required"},
		{"list_attempts", map[string]any{"token": "T", "rcpt": "a@b"}, `unknown argument "rcpt": this tool takes token`},
	} {
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		if len(res.Content) == 1 {
			text = res.Content[0].(*mcp.TextContent).Text
		}
		if !res.IsError || text != c.want {
			t.Errorf("%s %v: %q, want %q", c.tool, c.args, text, c.want)
		}
	}
	// What the schema allows passes, to the tool itself (which finds no
	// service here).
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_code",
		Arguments: map[string]any{"token": "T", "timeout_seconds": 0, "pattern": `\d{6}`}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "connection refused") {
		t.Errorf("a call the schema allows: %v %+v", err, res)
	}
}

func TestCheckArgumentsTakesOnlyAnObject(t *testing.T) {
	t.Parallel()
	s := NewTools("test").inputs["create_inbox"]
	for raw, want := range map[string]string{"": "", "null": "", "{}": "", `{"name":"x"}`: "",
		"[1]": "the arguments must be a JSON object", `"x"`: "the arguments must be a JSON object"} {
		err := checkArguments(s, json.RawMessage(raw))
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
}

// TestTextContentIsNotHTMLEscaped: the text of a result is the JSON of its
// structured content as a person writes it: a link's & stays &.
func TestTextContentIsNotHTMLEscaped(t *testing.T) {
	t.Parallel()
	res, out, err := result(foundLinkOut{Link: "https://shop.example/verify?u=7&t=zz", Subject: "<Welcome>"})
	if err != nil || out.Link == "" {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"link":"https://shop.example/verify?u=7&t=zz"`) ||
		!strings.Contains(text, `"subject":"<Welcome>"`) || strings.Contains(text, `\u00`) {
		t.Errorf("text %s", text)
	}
}

// TestFaultToolsCallTheTokenAPI: each fault tool is one call of the
// token API's, its arguments sent as the service reads them (durations
// as Go writes them) and its answer shown without nulls; deleting a rule
// already gone succeeds, and says so.
func TestFaultToolsCallTheTokenAPI(t *testing.T) {
	t.Parallel()
	const rule = `{"id":"R1","command":"RCPT","reply":"451 4.7.1 Greylisted, try again later","greylist":"30s","priority":5,` +
		`"created_at":"2026-11-29T03:00:00Z","expires_at":"2026-11-29T04:00:00Z","matched":0,"fired":0}`
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.Path+" "+string(body))
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, rule)
		case strings.HasSuffix(r.URL.Path, "/faults/"):
			io.WriteString(w, "["+rule+"]")
		case strings.HasSuffix(r.URL.Path, "/attempts/"):
			io.WriteString(w, `[{"at":"2026-11-29T03:00:01Z","client":null,"from":"app@shop.example","command":"RCPT","code":451,`+
				`"reply":"451 4.7.1 Greylisted, try again later","rule_id":"R1","message_id":null}]`)
		case strings.HasSuffix(r.URL.Path, "/faults/gone/"):
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"fault rule not found"}`)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	s := sessionOf(t, srv.URL)
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	if out := call("add_fault", map[string]any{"token": "T", "command": "RCPT", "greylist": "30s", "priority": 5, "expires_in": "10m"}); !strings.Contains(out, `"greylist":"30s"`) ||
		!strings.Contains(out, `"id":"R1"`) || !strings.Contains(out, `"priority":5`) {
		t.Errorf("add_fault: %s", out)
	}
	if out := call("list_faults", map[string]any{"token": "T"}); !strings.HasPrefix(out, `{"rules":[{"command":"RCPT"`) {
		t.Errorf("list_faults: %s", out)
	}
	if out := call("list_attempts", map[string]any{"token": "T"}); strings.Contains(out, "null") || strings.Contains(out, "client") ||
		!strings.Contains(out, `"rule_id":"R1"`) {
		t.Errorf("list_attempts: %s", out)
	}
	if out := call("delete_fault", map[string]any{"token": "T", "rule_id": "R1"}); out != `{"already_gone":false,"deleted":true}` {
		t.Errorf("delete_fault: %s", out)
	}
	if out := call("delete_fault", map[string]any{"token": "T", "rule_id": "gone"}); out != `{"already_gone":true,"deleted":true}` {
		t.Errorf("delete_fault of a rule gone: %s", out)
	}
	want := []string{
		`POST /inboxes/T/faults/ {"command":"RCPT","greylist":"30s","priority":5,"expires_in":"10m0s"}`,
		"GET /inboxes/T/faults/ ",
		"GET /inboxes/T/attempts/ ",
		"DELETE /inboxes/T/faults/R1/ ",
		"DELETE /inboxes/T/faults/gone/ ",
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Errorf("request %d: %q, want %q", i, got[min(i, len(got)-1)], w)
		}
	}
}
