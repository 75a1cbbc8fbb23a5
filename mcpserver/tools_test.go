package mcpserver

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

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
