package mcpserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tempmail/client"
)

// MaxRequestBytes bounds one MCP request over HTTP: a tool call is a few
// hundred bytes.
const MaxRequestBytes = 64 << 10

// callBudget is the longest one call over HTTP may take: the longest wait,
// and time to answer.
const callBudget = maxTimeout*time.Second + client.RequestTimeout

// Handler serves the tools over streamable HTTP, statelessly: each POST is
// one JSON-RPC message answered with JSON, and the server keeps nothing
// between requests, so there are no sessions to bound or expire, and a
// process of a cluster answers any request. clientFor gives the client a
// request's tool calls use (package api's calls the service in process on
// behalf of the request's caller).
//
// A JSON-RPC batch (an array, allowed by protocol versions before
// 2025-06-18) is refused: one request would otherwise make many calls at
// once, each holding a place among the service's held requests.
func (t *Tools) Handler(clientFor func(*http.Request) *client.Client) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		return t.Server(clientFor(r), r.Context())
	}, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: MaxRequestBytes,
		// The SDK refuses requests that reach a loopback listener with
		// another Host, against DNS rebinding. Behind a reverse proxy on the
		// same host that is every request: package api checks Host and
		// Origin itself, against the service's own names and origins,
		// which the SDK does not know.
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
			if err != nil {
				http.Error(w, "the request body is larger than 64 KiB", http.StatusRequestEntityTooLarge)
				return
			}
			if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] == '[' {
				http.Error(w, "JSON-RPC batches are not supported: send one message per request", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			// The body is read: a call may now take as long as its wait,
			// beyond the server's read and write timeouts, which are for
			// ordinary requests.
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Time{})
			_ = rc.SetWriteDeadline(time.Now().Add(callBudget + 10*time.Second))
		}
		h.ServeHTTP(w, r)
	})
}

// ServeStdio serves the tools over in and out (a host's pipes to `tempmail
// mcp`) until in ends or ctx is done, calling the service through c.
func (t *Tools) ServeStdio(ctx context.Context, c *client.Client, in io.ReadCloser, out io.WriteCloser) error {
	return t.Server(c, nil).Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
}
