package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"tempmail/client"
)

// What a client command prints of a failed call is the call itself (its
// method and URL, the inbox's token written as "…"), what went wrong, and
// what to check: most failures of a newcomer are a --server that is not
// the service's base URL (a path too many gives the service's 404 or 405,
// which say nothing of --server), a service not running there, or a key
// that is not the one meant, and each is said in the terms they type.
//
//	tempmail inbox new: POST http://localhost:8080/api/inboxes/: Not found (HTTP 404); is --server (TEMPMAIL_SERVER) the service's base URL, such as http://127.0.0.1:8080?

// serverHint is said of an answer that the route is not the service's.
const serverHint = "is --server (TEMPMAIL_SERVER) the service's base URL, such as " + defaultServer + "?"

// describe is what a command prints of err, an error of a call to the
// service at base (the client's Server). credential names the
// credential the command sent, for an answer that refuses it ("check the
// key in --key"), "" when it sent none.
func describe(err error, base, credential string) string {
	var (
		call string
		he   *client.Error
		ue   *url.Error
	)
	what := err.Error()
	switch {
	case errors.As(err, &he):
		call, what = he.Method+" "+he.URL, he.Error()
	case errors.As(err, &ue):
		u, _, _ := strings.Cut(ue.URL, "?")
		call, what = strings.ToUpper(ue.Op)+" "+u, ue.Err.Error()
	}
	hint := ""
	switch {
	case errors.Is(err, client.ErrNoInbox):
		// The same words wherever an inbox is missing (wait, inbox delete).
		what = client.ErrNoInbox.Error()
	case he != nil && (he.Status == http.StatusNotFound || he.Status == http.StatusMethodNotAllowed):
		hint = serverHint
	case he != nil && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden) &&
		!strings.HasPrefix(he.Message, "quota exceeded"):
		hint = credential
	case ue != nil && errors.As(ue.Err, new(*net.DNSError)):
		hint = "is the host in --server (TEMPMAIL_SERVER) the service's?"
	case ue != nil && errors.As(ue.Err, new(*net.OpError)):
		// Nothing listening, no route, a connection reset.
		hint = fmt.Sprintf("is the service running at %s (--server, TEMPMAIL_SERVER)?", base)
	}
	out := what
	if call != "" {
		out = call + ": " + out
	}
	if hint != "" {
		out += "; " + hint
	}
	return client.Printable(out)
}
