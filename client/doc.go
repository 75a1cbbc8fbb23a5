// Package client is a small Go client of tempmail's family C API (the token
// API): make an inbox, list and read its messages, delete it, and wait for
// a message, a one-time code or a link. `tempmail inbox`, `tempmail wait`
// and the MCP tools (package mcpserver) are built on it, so that all of
// them behave as the HTTP API documents (docs/API.md).
//
// A wait longer than the service holds one request (60 s) is a chain of
// held requests, each answered as soon as what it waits for arrives: no
// polling. A wait returns what already matches at once; Query.After counts
// only what came later.
//
// It knows nothing of the service's internals: it speaks HTTP to a base
// URL through an http.Client, which the service itself may point at its
// own handler (package api does, for the MCP tools it serves).
package client
