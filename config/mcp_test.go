package config

import (
	"io"
	"strings"
	"testing"
)

// TestMCPFlag: /mcp is served unless --mcp=false (or TEMPMAIL_MCP=false)
// turns it off; the flag alone, as a boolean flag, turns it on.
func TestMCPFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want bool
		err  string
	}{
		{name: "default", want: true},
		{name: "off", args: []string{"--mcp=false"}, want: false},
		{name: "off from the environment", env: map[string]string{"TEMPMAIL_MCP": "false"}, want: false},
		{name: "the flag alone", args: []string{"--mcp"}, env: map[string]string{"TEMPMAIL_MCP": "false"}, want: true},
		{name: "not a boolean", args: []string{"--mcp=maybe"}, err: `invalid --mcp "maybe": must be true or false`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse("serve", c.args, env(c.env), io.Discard)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || cfg.MCP != c.want {
				t.Errorf("MCP %v, %v; want %v", cfg.MCP, err, c.want)
			}
		})
	}
}
