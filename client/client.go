package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Client calls one tempmail service. Its zero value is not usable: set
// Server, or use New.
type Client struct {
	// Server is the service's base URL: http://127.0.0.1:8080, or
	// https://mail.example.com/tempmail behind a proxy that serves it under
	// a path.
	Server string
	// HTTP makes the requests; nil: http.DefaultClient. Every request is
	// bounded by a deadline of its own (its wait and RequestTimeout), so
	// the client needs no overall timeout.
	HTTP *http.Client
	// ReadKey is sent as X-Read-Key, for a service run with --read-key
	// (latest, otp and link need it).
	ReadKey string
	// Key is sent as Authorization: Bearer: a tenant's API key (tm_...),
	// whose tenant the inboxes it makes belong to, or the operator's API
	// token, the admin key (docs/tenants.md "Tenants and keys"). Empty: none.
	Key string
	// Header is sent with every request, after the client's own headers.
	Header http.Header
	// MaxWait is the longest one request is held: a longer wait is a chain
	// of them. 0: 60 s, the longest the service holds one.
	MaxWait time.Duration
	// RetryBusy makes a wait that is refused for a while (503 "too many
	// requests are being held open", 429 beyond a per-client limit) try
	// again after the Retry-After the service gives, while its time lasts.
	RetryBusy bool
}

// RequestTimeout bounds a request beyond its wait: the service answers
// everything else within seconds.
const RequestTimeout = 30 * time.Second

// maxBody bounds an answer read: a message's detail is at most a few MiB
// (bodies of 256 KiB each, JSON-escaped, headers, links).
const maxBody = 16 << 20

// New returns a client of the service at server (http or https, with an
// optional path), or an error that says what a base URL must be.
func New(server string) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(server))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" {
		shown := server
		if err == nil && u.User != nil {
			shown = u.Redacted() // a password is not for the log
		}
		return nil, fmt.Errorf("server %q is not a base URL such as http://127.0.0.1:8080 or https://mail.example.com", shown)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return &Client{Server: u.String()}, nil
}

// Error is an answer of the service other than success.
type Error struct {
	Status     int
	Message    string        // the service's error, or the start of what it answered
	RetryAfter time.Duration // from Retry-After, when it says
	// Method and URL are the request's (the last, after redirects),
	// the URL without its query and with the inbox's token written as
	// "…", for a caller to say what it called: Error leaves them out,
	// as what the MCP tools pass on names no real host.
	Method, URL string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (HTTP %d)", e.Message, e.Status)
}

// Is makes the service's answer for a token of no inbox ErrNoInbox, from
// whichever call met it. Only its own: a 404 of a proxy, or of a --server
// with the wrong path, says nothing of the inbox.
func (e *Error) Is(target error) bool {
	return target == ErrNoInbox && e.Status == http.StatusNotFound && e.Message == inboxNotFound
}

// ErrNotYet is what latest, otp and link answer when nothing matches yet
// (404 "No messages", "No code found", "No link").
var ErrNotYet = errors.New("nothing matches yet")

// ErrTimeout ends a wait whose time ran out with nothing matching.
var ErrTimeout = errors.New("timed out")

// ErrNoInbox is what DeleteInbox returns when no inbox has the token: it
// was deleted, it expired, or it was never made. The errors of the other
// calls of an inbox are ErrNoInbox too then (errors.Is), though they are
// the service's *Error.
var ErrNoInbox = errors.New("no inbox has this token (deleted, expired, or never made)")

// inboxNotFound is the service's error for a token of no inbox.
const inboxNotFound = "Inbox not found"

// notYet are the answers of latest, otp and link that mean "not yet", as
// opposed to an inbox that is not there (also 404).
var notYet = [...]string{"No messages", "No code found", "No link"}

// do sends a request and decodes a successful answer into out (when not
// nil), returning the answer as it came.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body []byte, wait time.Duration, out any) (json.RawMessage, error) {
	resp, err := c.send(ctx, method, path, query, body, wait)
	if err != nil {
		return nil, err
	}
	return decode(resp, out)
}

// answer is a response whose body has been read.
type answer struct {
	Header http.Header
	Body   []byte
}

// send makes one request, bounded by wait and RequestTimeout, and turns an
// answer other than 2xx into an *Error (or ErrNotYet). Its errors never
// show the inbox's token, the read key or the key.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body []byte, wait time.Duration) (*answer, error) {
	a, err := c.exchange(ctx, method, path, query, body, wait)
	return a, secretsOf(path, c.ReadKey, c.Key).redact(err)
}

func (c *Client) exchange(ctx context.Context, method, path string, query url.Values, body []byte, wait time.Duration) (*answer, error) {
	ctx, cancel := context.WithTimeout(ctx, wait+RequestTimeout)
	defer cancel()
	u := c.Server + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.ReadKey != "" {
		req.Header.Set("X-Read-Key", c.ReadKey)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := sameOriginOnly(hc).Do(req)
	var cross *crossOrigin
	if errors.As(err, &cross) {
		return nil, cross // without the URL, which holds the token
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("%s %s: the answer is larger than %d bytes", method, path, maxBody)
	}
	if resp.StatusCode/100 != 2 {
		return nil, errorOf(resp, b)
	}
	return &answer{Header: resp.Header, Body: b}, nil
}

// sameOriginOnly is hc following redirects within the service's origin
// alone. The token is in the path and the read key in a header, which Go
// sends on to wherever a redirect leads (it keeps back Authorization and
// cookies alone, and only from other domains): a redirect to another
// origin is not followed, and says so.
func sameOriginOnly(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if from, to := originOf(via[0].URL), originOf(next.URL); from != to {
			return &crossOrigin{from: from, to: to}
		}
		if hc.CheckRedirect != nil {
			return hc.CheckRedirect(next, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// originOf is a URL's origin: scheme, host and port, the default port
// written out.
func originOf(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// crossOrigin is a redirect to another origin, not followed.
type crossOrigin struct{ from, to string }

func (e *crossOrigin) Error() string {
	return fmt.Sprintf("the service at %s redirected to another origin, %s: not followed, so that the inbox's token "+
		"and the read key stay with the service; if it has moved, give its new address as --server", e.from, Printable(e.to))
}

func decode(a *answer, out any) (json.RawMessage, error) {
	if out == nil || len(a.Body) == 0 {
		return a.Body, nil
	}
	if err := json.Unmarshal(a.Body, out); err != nil {
		return nil, fmt.Errorf("the service's answer is not what this client expects: %v", err)
	}
	return a.Body, nil
}

// errorOf reads the service's error: {"error": ...} in family C and the
// admin's endpoints, {"detail": ...} in family A's 401 and 404, or
// whatever a proxy in between answered, cut to one short line.
func errorOf(resp *http.Response, body []byte) error {
	var e struct {
		Error  string `json:"error"`
		Detail string `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &e) == nil && (e.Error != "" || e.Detail != "") {
		msg = cmp.Or(e.Error, e.Detail)
	} else {
		msg = strings.Join(strings.FieldsFunc(string(body), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
	}
	if resp.StatusCode == http.StatusNotFound {
		for _, s := range notYet {
			if msg == s {
				return ErrNotYet
			}
		}
	}
	out := &Error{Status: resp.StatusCode, Message: msg}
	if req := resp.Request; req != nil {
		u := *req.URL
		u.RawQuery, u.ForceQuery, u.Fragment, u.User = "", false, "", nil
		out.Method, out.URL = req.Method, u.String()
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		out.RetryAfter = time.Duration(min(s, 3600)) * time.Second
	}
	return out
}
