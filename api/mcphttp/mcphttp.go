package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"tempmail"
	"tempmail/api/family"
	"tempmail/client"
	"tempmail/fairshare"
	"tempmail/mcpserver"
)

// inProcessBase names no host: requests never leave the process.
const inProcessBase = "http://tempmail.in-process"

// maxInProcessAnswer bounds what one in-process answer may hold in memory:
// more than any JSON answer of the API (a message's detail is a few MiB).
const maxInProcessAnswer = 16 << 20

// endpoint is /mcp, over the Kit every family is given.
type endpoint struct {
	*family.Kit
	// serve is the server's own router, which every tool's call of the
	// API goes through.
	serve http.Handler
}

// Handler serves /mcp: mcpserver's tools, named version to clients, each
// of whose calls of the API serve serves in process.
func Handler(k *family.Kit, version string, serve http.Handler) http.Handler {
	s := &endpoint{Kit: k, serve: serve}
	h := mcpserver.NewTools(version).Handler(func(r *http.Request) *client.Client {
		c := family.CredentialIn(r.Context())
		forward := c.Admin || c.Key != nil
		return &client.Client{Server: inProcessBase, HTTP: &http.Client{Transport: inProcess{s: s.serve, caller: r, authorized: forward}}}
	})
	names := s.ownNames()
	rate := fairshare.New(s.Config.MCPRatePerClient)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.mcpAllowed(r, names); err != nil {
			family.WriteError(w, r, s.Log, err)
			return
		}
		// authenticate found the credential, but lets a bad one through on
		// paths outside the API families, /mcp among them: asked again, it
		// says why.
		if c := family.CredentialFrom(r); !c.Admin && c.Key == nil && r.Header.Get("Authorization") != "" {
			if _, err := s.CredentialOf(r); err != nil && err != family.ErrBadToken { // a bad key, or the store failing
				family.WriteError(w, r, s.Log, err)
				return
			}
		}
		// Each request builds a server and runs a tool, 8 to 15 times the
		// cost of a plain GET: one client's are counted.
		if ok, wait := rate.Take(s.ClientOf(r), time.Now()); !ok {
			family.WriteError(w, r, s.Log, family.TooMany(wait, "too many MCP requests from your address (at most %s); try again in %d s",
				family.RateText(s.Config.MCPRatePerClient), family.RetryAfter(wait).Seconds()))
			return
		}
		// An MCP request lasts as long as the call's wait: its duration
		// says nothing of the service's speed (the API requests it makes
		// are timed as their own).
		family.MarkHeld(r)
		h.ServeHTTP(w, r)
	})
}

// mcpAllowed checks what the MCP specification asks a server over HTTP to
// check against DNS rebinding, which would let a page in a browser reach
// an instance on 127.0.0.1 under a name of the attacker's: the Host must
// be one of the service's own names, and an Origin, when a browser sends
// one, the service's own origin or one of --cors-origins. Agents' hosts
// send no Origin.
func (s *endpoint) mcpAllowed(r *http.Request, names map[string]bool) error {
	host := hostOnly(r.Host)
	if _, err := netip.ParseAddr(host); err != nil && !names[host] {
		return tempmail.Errorf(tempmail.Forbidden, "/mcp answers only under this service's own names; Host %q is not one (--hostname, --domains, --cors-origins, the listen address and localhost are)", tempmail.Truncate(r.Host, 100))
	}
	origin := r.Header.Get("Origin")
	if origin == "" || slices.Contains(s.Config.CORSOrigins, "*") || slices.Contains(s.Config.CORSOrigins, origin) {
		return nil
	}
	if u, err := url.Parse(origin); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return nil // the service's own origin
	}
	return tempmail.Errorf(tempmail.Forbidden, "/mcp does not answer pages of origin %q; an operator may allow it with --cors-origins", tempmail.Truncate(origin, 100))
}

// ownNames are the host names the service answers /mcp under: its
// --hostname (or the machine's), its mail domains, the hosts of
// --cors-origins, its listen address, and localhost. An address (a Host
// that is an IP literal) is always allowed: no name was resolved, so no
// name can have been rebound.
func (s *endpoint) ownNames() map[string]bool {
	names := map[string]bool{"localhost": true}
	add := func(n string) {
		if n = strings.ToLower(strings.TrimSuffix(n, ".")); n != "" {
			names[n] = true
		}
	}
	add(s.Config.Hostname)
	if s.Commands != nil {
		add(s.Commands.Mail.Hostname)
	}
	for _, d := range s.Config.Domains {
		add(d)
	}
	for _, o := range s.Config.CORSOrigins {
		if u, err := url.Parse(o); err == nil {
			add(u.Hostname())
		}
	}
	add(hostOnly(s.Config.HTTPAddr))
	return names
}

// hostOnly is a Host header's or a listen address's host, without its
// port and brackets, lower case.
func hostOnly(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
}

// inProcess is an http.RoundTripper that serves a request with s's router,
// as if caller had sent it.
type inProcess struct {
	s          http.Handler // the server's router
	caller     *http.Request
	authorized bool // the caller's Authorization names a key or the API token
}

func (t inProcess) RoundTrip(out *http.Request) (*http.Response, error) {
	body := []byte(nil)
	if out.Body != nil {
		var err error
		body, err = io.ReadAll(io.LimitReader(out.Body, family.MaxBodyBytes+1))
		out.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	// The call's context is the MCP request's, with its values (chi's
	// routing state among them, which would route this request as that
	// one): the request gets a fresh context that ends with the call's.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if d, ok := out.Context().Deadline(); ok {
		var cancelDeadline context.CancelFunc
		ctx, cancelDeadline = context.WithDeadline(ctx, d)
		defer cancelDeadline()
	}
	defer context.AfterFunc(out.Context(), cancel)()
	in := out.Clone(ctx)
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.ContentLength = int64(len(body))
	in.RemoteAddr = t.caller.RemoteAddr
	in.RequestURI = out.URL.RequestURI()
	in.Host = t.caller.Host
	in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	passed := []string{"X-Forwarded-For", "X-Read-Key"}
	if t.authorized {
		passed = append(passed, "Authorization")
	}
	for _, h := range passed {
		if v := t.caller.Header.Values(h); len(v) > 0 {
			in.Header[h] = v
		}
	}
	rec := &recorder{header: http.Header{}}
	t.s.ServeHTTP(rec, in)
	if rec.overflow {
		return nil, errors.New("the answer is too large")
	}
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return &http.Response{Status: strconv.Itoa(rec.status) + " " + http.StatusText(rec.status), StatusCode: rec.status,
		Proto: in.Proto, ProtoMajor: 1, ProtoMinor: 1, Header: rec.header, Body: io.NopCloser(&rec.body),
		ContentLength: int64(rec.body.Len()), Request: out}, nil
}

// recorder keeps an in-process answer, up to maxInProcessAnswer.
type recorder struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	overflow bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	if r.body.Len()+len(b) > maxInProcessAnswer {
		r.overflow = true
		return 0, errors.New("answer too large")
	}
	return r.body.Write(b)
}
