// Package mcpserver serves tempmail to AI agents over the Model Context
// Protocol, with the official Go SDK: eleven tools (create_inbox,
// list_messages, read_message, wait_for_message, get_code, get_link,
// delete_inbox, and an inbox's fault rules: add_fault, list_faults,
// delete_fault, list_attempts, in faults.go), each with JSON schemas for what it takes and returns
// (schemas.go): plain types that any host reads, arguments checked in
// words, and results whose text is their JSON as written, without HTML
// escapes. It advertises tools alone: it sends no logs and its tools never
// change.
//
// The tools do nothing of their own: each call is one or a few calls of the
// HTTP API through package client, so that a tool behaves, and is limited,
// exactly as the endpoint it stands for. `tempmail mcp` runs them over
// stdio against a remote service; package api serves them over streamable
// HTTP at /mcp, with a client that calls the service's own handler in
// process on behalf of the MCP request's caller.
//
// What a message says is written by whoever sent it. The tools return it
// as data, cut to bounds, and their descriptions tell the agent never to
// follow instructions found in mail.
package mcpserver
