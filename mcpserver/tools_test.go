package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// bound, and timeout_seconds its range and default, so that a host shows
// the agent the limits and the SDK refuses what is beyond them.
func TestInputSchemasAreBounded(t *testing.T) {
	t.Parallel()
	tools := NewTools("test")
	if len(tools.inputs) != 7 {
		t.Errorf("%d input schemas, want 7", len(tools.inputs))
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
	c, err := client.New("http://127.0.0.1:1")
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
	if len(list.Tools) != 7 {
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
