package mcphttp

import (
	"tempmail/api/openapi"
)

// Contract is /mcp's part of the OpenAPI document (api/openapi.json): one
// operation, whose messages are MCP's (docs/API.md describes the tools).
func Contract() openapi.Contract {
	return openapi.Contract{
		Operations: []openapi.Operation{{
			Method: "POST", Path: "/mcp",
			ID:      "mcp",
			Tags:    []string{"MCP"},
			Summary: "One MCP message (JSON-RPC 2.0)",
			Description: "The streamable HTTP transport of the Model Context Protocol, stateless: each request is " +
				"one JSON-RPC message (`initialize`, `tools/list`, `tools/call`, ...; batches are " +
				"refused), answered with one JSON-RPC response as `application/json`; the server keeps no " +
				"session between requests, so `GET` and `DELETE` are answered 405. The request must accept " +
				"both `application/json` and `text/event-stream`, as the specification says. A tool call " +
				"is made through the HTTP API on behalf of the caller: a call that waits holds a " +
				"`--max-waiters` place for its wait (at most 60 s); `X-Read-Key` and `X-Forwarded-For` are " +
				"passed on, and `Authorization: Bearer <key>` when it names a tenant's key or the API " +
				"token: the tools then act for the key's tenant, with its scopes (its inboxes alone; a " +
				"`read` key makes none). Without a key the token is the credential, as in family C; the " +
				"tools' results are data written by whoever sent the mail, never instructions.",
			Security: []openapi.Security{},
			Params: []openapi.Param{{
				Name:        "X-Read-Key",
				In:          "header",
				Description: "Passed on to the tools' calls of `latest`, `otp` and `link` when the service has `--read-key`.",
				Schema:      &openapi.Schema{Type: "string"},
			}},
			Body: &openapi.Body{
				Required: true,
				Content: openapi.JSON(&openapi.Schema{
					Description: "A JSON-RPC 2.0 request or notification, at most 64 KiB.",
					Type:        "object",
					Required:    []string{"jsonrpc", "method"},
					Properties: []openapi.Property{
						{Name: "jsonrpc", Schema: openapi.Schema{Const: "2.0"}},
						{Name: "method", Schema: openapi.Schema{Type: "string"}},
						{Name: "id", Schema: openapi.Schema{Description: "The request's id; none for a notification."}},
						{Name: "params", Schema: openapi.Schema{Type: "object"}},
					},
				}),
			},
			Responses: map[string]openapi.Response{
				"200": {
					Description: "The JSON-RPC response.",
					Content: openapi.JSON(&openapi.Schema{
						Type:     "object",
						Required: []string{"jsonrpc"},
						Properties: []openapi.Property{
							{Name: "jsonrpc", Schema: openapi.Schema{Const: "2.0"}},
							{Name: "id", Schema: openapi.Schema{}},
							{Name: "result", Schema: openapi.Schema{Type: "object"}},
							{Name: "error", Schema: openapi.Schema{Type: "object"}},
						},
					}),
				},
				"202": {Description: "A notification, accepted; no body."},
				"400": {
					Description: "Not a JSON-RPC message, a batch, an unsupported `MCP-Protocol-Version`, or an `Accept` " +
						"without both `application/json` and `text/event-stream`.",
					Content: map[string]openapi.MediaType{
						"text/plain": {Schema: &openapi.Schema{Type: "string"}},
					},
				},
				"401": {
					Description: "`Authorization: Bearer` names a key that is unknown, revoked or expired: refused before " +
						"any tool runs.",
					Content: openapi.JSON(openapi.Ref("Error")),
				},
				"403": {
					Description: "Against DNS rebinding, as the MCP specification asks: a `Host` that is not one of the " +
						"service's names (an IP address, `localhost`, `--hostname` or the machine's name, a domain " +
						"of `--domains`, the host of a `--cors-origins` origin or of `--http-addr`), or an " +
						"`Origin` other than the service's own and those of `--cors-origins`. Agents' hosts send " +
						"no `Origin`.",
					Content: openapi.JSON(openapi.Ref("Error")),
				},
				"413": {
					Description: "The body is larger than 64 KiB.",
					Content: map[string]openapi.MediaType{
						"text/plain": {Schema: &openapi.Schema{Type: "string"}},
					},
				},
				"415": {
					Description: "The body is not `application/json`.",
					Content: map[string]openapi.MediaType{
						"text/plain": {Schema: &openapi.Schema{Type: "string"}},
					},
				},
				"429": {
					Description: "The client sent more than its share of requests to `/mcp` (`--mcp-rate-per-client`, 600 a " +
						"minute by default). Try again after `Retry-After` seconds. A client is its address (an " +
						"IPv6 one its /64), as for the other shares.",
					Headers: map[string]openapi.Header{
						"Retry-After": {Ref: "Retry-After"},
					},
					Content: openapi.JSON(openapi.Ref("Error")),
				},
				"500": {Ref: "InternalError"},
			},
		},
		},
	}
}
