package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"tempmail/wire"
)

// The shapes of family C, as the service writes them: declared once, in
// package wire, and read here as they are.
type (
	// Attachment describes one attachment of a message.
	Attachment = wire.Attachment
	// Link is one of a message's links.
	Link = wire.Link
	// Summary is a message as lists show it.
	Summary = wire.Summary
	// Code is a one-time code and the message it was found in.
	Code = wire.Code
	// FoundLink is a link and the message it was found in.
	FoundLink = wire.FoundLink
	// Auth is what the checks of a message concluded.
	Auth = wire.Auth
)

// Inbox is a family C inbox (its Count by Inbox only).
type Inbox struct {
	wire.InboxDetail
	// JSON is the service's answer as it came.
	JSON json.RawMessage `json:"-"`
}

// Message is one message, whole.
type Message struct {
	wire.Message
	// JSON is the service's answer as it came, with any field this
	// client does not know.
	JSON json.RawMessage `json:"-"`
}

// Query says what latest, otp and link look for: the filters (each a
// case-insensitive substring; empty: any), only messages newer than After
// (a message id) and received after AfterTime (by the service's clock;
// zero: any time), and for otp and link a pattern (RE2; empty: the
// service's default, six digits for otp, any link for link).
type Query struct {
	From, To, Subject string
	After             string
	AfterTime         time.Time
	Pattern           string
}

func (q Query) values(wait time.Duration) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"from": q.From, "to": q.To, "subject": q.Subject, "after": q.After, "pattern": q.Pattern} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if wait > 0 {
		v.Set("wait", strconv.Itoa(int(wait/time.Second)))
	}
	return v
}

// CreateInbox makes an inbox; name and domain may be empty (the service
// chooses).
func (c *Client) CreateInbox(ctx context.Context, name, domain string) (*Inbox, error) {
	body, _ := json.Marshal(struct {
		Name   string `json:"name,omitempty"`
		Domain string `json:"domain,omitempty"`
	}{name, domain})
	var in Inbox
	raw, err := c.do(ctx, http.MethodPost, "/inboxes/", nil, body, 0, &in)
	in.JSON = raw
	return &in, err
}

// Inbox reads an inbox and its message count.
func (c *Client) Inbox(ctx context.Context, token string) (*Inbox, error) {
	var in Inbox
	raw, err := c.do(ctx, http.MethodGet, "/inboxes/"+url.PathEscape(token)+"/", nil, nil, 0, &in)
	in.JSON = raw
	return &in, err
}

// DeleteInbox deletes an inbox and all its mail. When the service has no
// inbox with the token, the error is ErrNoInbox: deleting is done, by
// whoever did it first or by expiry, and a caller that deletes to clean up
// may take that as success.
func (c *Client) DeleteInbox(ctx context.Context, token string) error {
	_, err := c.do(ctx, http.MethodDelete, "/inboxes/"+url.PathEscape(token)+"/", nil, nil, 0, nil)
	if errors.Is(err, ErrNoInbox) { // the service's own answer alone (Error.Is)
		return ErrNoInbox
	}
	return err
}

// Messages lists an inbox's newest messages, at most limit (1 to 200; 0:
// the service's default, 50), and says how many it holds in all.
func (c *Client) Messages(ctx context.Context, token string, limit int) (list []Summary, total int, err error) {
	v := url.Values{}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	resp, err := c.send(ctx, http.MethodGet, "/inboxes/"+url.PathEscape(token)+"/messages/", v, nil, 0)
	if err != nil {
		return nil, 0, err
	}
	if _, err := decode(resp, &list); err != nil {
		return nil, 0, err
	}
	total, _ = strconv.Atoi(resp.Header.Get("X-Total-Count"))
	return list, total, nil
}

// Message reads one message of an inbox.
func (c *Client) Message(ctx context.Context, token, id string) (*Message, error) {
	var m Message
	raw, err := c.do(ctx, http.MethodGet, "/inboxes/"+url.PathEscape(token)+"/messages/"+url.PathEscape(id)+"/", nil, nil, 0, &m)
	m.JSON = raw
	return &m, err
}

// Latest is the newest message that q matches, held up to wait (whole
// seconds, at most 60) until one arrives; ErrNotYet if none does.
func (c *Client) Latest(ctx context.Context, token string, q Query, wait time.Duration) (*Message, error) {
	q.Pattern = ""
	return receivedAfter(q, wait, func(q Query, wait time.Duration) (*Message, error) {
		var m Message
		raw, err := c.do(ctx, http.MethodGet, "/inboxes/"+url.PathEscape(token)+"/latest/", q.values(wait), nil, wait, &m)
		m.JSON = raw
		return &m, err
	}, func(m *Message) (string, time.Time) { return m.ID, m.ReceivedAt.Time })
}

// OTP is the newest one-time code that q matches, held as Latest is.
func (c *Client) OTP(ctx context.Context, token string, q Query, wait time.Duration) (*Code, error) {
	return receivedAfter(q, wait, func(q Query, wait time.Duration) (*Code, error) {
		var code Code
		_, err := c.do(ctx, http.MethodGet, "/inboxes/"+url.PathEscape(token)+"/otp/", q.values(wait), nil, wait, &code)
		return &code, err
	}, func(code *Code) (string, time.Time) { return code.MessageID, code.ReceivedAt.Time })
}

// Link is the newest link that q matches, held as Latest is.
func (c *Client) Link(ctx context.Context, token string, q Query, wait time.Duration) (*FoundLink, error) {
	return receivedAfter(q, wait, func(q Query, wait time.Duration) (*FoundLink, error) {
		var l FoundLink
		_, err := c.do(ctx, http.MethodGet, "/inboxes/"+url.PathEscape(token)+"/link/", q.values(wait), nil, wait, &l)
		return &l, err
	}, func(l *FoundLink) (string, time.Time) { return l.MessageID, l.ReceivedAt.Time })
}

// WaitMessage, WaitOTP and WaitLink wait up to timeout for what Latest, OTP
// and Link find, chaining held requests; what matches already is answered
// at once. When the time is up with nothing found, the error is
// ErrTimeout.
func (c *Client) WaitMessage(ctx context.Context, token string, q Query, timeout time.Duration) (*Message, error) {
	return waitFor(ctx, c, timeout, func(ctx context.Context, wait time.Duration) (*Message, error) {
		return c.Latest(ctx, token, q, wait)
	})
}

func (c *Client) WaitOTP(ctx context.Context, token string, q Query, timeout time.Duration) (*Code, error) {
	return waitFor(ctx, c, timeout, func(ctx context.Context, wait time.Duration) (*Code, error) {
		return c.OTP(ctx, token, q, wait)
	})
}

func (c *Client) WaitLink(ctx context.Context, token string, q Query, timeout time.Duration) (*FoundLink, error) {
	return waitFor(ctx, c, timeout, func(ctx context.Context, wait time.Duration) (*FoundLink, error) {
		return c.Link(ctx, token, q, wait)
	})
}
