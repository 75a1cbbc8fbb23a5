package mcphttp_test

import (
	"context"
	"net/http"
	"strings"
	"tempmail/service/apitest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSessionWith connects to /mcp as mcpSession does, sending
// Authorization: Bearer key with every request; it returns the error of
// connecting, for a key that is refused.
func mcpSessionWith(h *apitest.Harness, key string) (*mcp.ClientSession, error) {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bearer := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+key)
		return http.DefaultTransport.RoundTrip(r)
	})
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.URL + "/mcp", HTTPClient: h.ClientVia(bearer, 90*time.Second)}, nil)
	if err == nil {
		h.T.Cleanup(func() { s.Close() })
	}
	return s, err
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestMCPActsForTheKeysTenant: over HTTP, a key's MCP calls are its
// tenant's: the inbox it makes is the tenant's (its key lists it, another
// tenant's key is told it is not found), a read key makes none, and a
// revoked key is refused before any tool runs.
func TestMCPActsForTheKeysTenant(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	tenantA := h.NewTenant("a", "")
	keyA, _ := h.NewKey(tenantA, `["inboxes"]`)
	readA, _ := h.NewKey(tenantA, `["read"]`)
	keyB, idB := h.NewKey(h.NewTenant("b", ""), `["inboxes"]`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	asA, err := mcpSessionWith(h, keyA)
	if err != nil {
		t.Fatal(err)
	}
	var inbox struct{ Address, Token string }
	if e := call(t, ctx, asA, "create_inbox", map[string]any{"name": "agent-a"}, &inbox); e != "" {
		t.Fatalf("create_inbox with A's key: %s", e)
	}
	// The tenant's list has it: the inbox is A's.
	r := h.Do("GET", "/api/inboxes/", "", "Authorization", "Bearer "+keyA)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), inbox.Address) {
		t.Errorf("A's inboxes: %d %s, want %s among them", r.Status, r.Body, inbox.Address)
	}
	h.SendMail(inbox.Address, "Subject: code\r\n\r\nYour code is 551234.\r\n")
	var code struct{ Code string }
	if e := call(t, ctx, asA, "get_code", map[string]any{"token": inbox.Token, "timeout_seconds": 20}, &code); e != "" || code.Code != "551234" {
		t.Errorf("get_code with A's key: %q %+v", e, code)
	}

	asB, err := mcpSessionWith(h, keyB)
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Total int }
	if e := call(t, ctx, asB, "list_messages", map[string]any{"token": inbox.Token}, &list); !strings.Contains(e, "Inbox not found") {
		t.Errorf("list_messages of A's inbox with B's key: %q %+v, want not found", e, list)
	}
	var deleted struct {
		Deleted     bool
		AlreadyGone bool `json:"already_gone"`
	}
	if e := call(t, ctx, asB, "delete_inbox", map[string]any{"token": inbox.Token}, &deleted); e != "" || !deleted.AlreadyGone {
		t.Errorf("delete_inbox of A's inbox with B's key: %q %+v, want it not found", e, deleted)
	}
	if e := call(t, ctx, asA, "list_messages", map[string]any{"token": inbox.Token}, &list); e != "" || list.Total != 1 {
		t.Errorf("A's inbox after B's delete: %q %+v", e, list)
	}

	asRead, err := mcpSessionWith(h, readA)
	if err != nil {
		t.Fatal(err)
	}
	if e := call(t, ctx, asRead, "create_inbox", map[string]any{}, &inbox); !strings.Contains(e, "no inboxes scope") {
		t.Errorf("create_inbox with a read key: %q", e)
	}
	if e := call(t, ctx, asRead, "list_messages", map[string]any{"token": inbox.Token}, &list); e != "" || list.Total != 1 {
		t.Errorf("list_messages with A's read key: %q %+v", e, list)
	}

	h.Expect(h.Do("DELETE", "/api/keys/"+idB+"/", "", apitest.Admin()...), http.StatusNoContent, "")
	if _, err := mcpSessionWith(h, keyB); err == nil || strings.Contains(err.Error(), keyB) {
		t.Errorf("a revoked key: %v, want refused, without the key", err)
	}
	if _, err := asB.CallTool(ctx, &mcp.CallToolParams{Name: "create_inbox", Arguments: map[string]any{}}); err == nil ||
		!strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("a revoked key's session: %v, want refused", err)
	}
}
