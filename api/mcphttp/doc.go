// Package mcphttp serves /mcp: the MCP tools of package mcpserver, which
// call this server's own API in process: each call is a request through the
// server's router, with every check, limit and metric of an HTTP request.
// It carries the address of the MCP request's caller (and its
// X-Forwarded-For and X-Read-Key), so that a tool's wait holds a
// --max-waiters place and counts against its caller's limits exactly as the
// same wait over HTTP does; and the caller's Authorization when it names a
// tenant's key or the API token, so that the tools act for the key's
// tenant, with its scopes (docs/tenants.md "Tenants and keys"). A key that is
// unknown, revoked or expired is refused (401) before any tool runs; any
// other Authorization (a proxy's in front) is not the service's and is not
// passed on. contract.go is its operation in the OpenAPI document.
package mcphttp
