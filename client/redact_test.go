package client

import (
	"context"
	"errors"
	"net/url"
	"testing"
)

// TestErrorsShowNoSecret: whatever error a request ends with, its text has
// the inbox's token (as given and as the path has it), the read key and the
// API key written as "…", and what it wraps still answers errors.Is and errors.As.
func TestErrorsShowNoSecret(t *testing.T) {
	t.Parallel()
	const token, key, apiKey = "XJOB SECRET/TOKEN", "s3cret-key", "tm_abcdefghijklmnopqrstuvwxyz234567"
	s := secretsOf("/inboxes/"+url.PathEscape(token)+"/otp/", key, apiKey)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"a url.Error", &url.Error{Op: "Get", URL: "http://127.0.0.1:9/inboxes/XJOB%20SECRET%2FTOKEN/otp/?wait=2",
			Err: errors.New("dial tcp 127.0.0.1:9: connect: connection refused")},
			`Get "http://127.0.0.1:9/inboxes/…/otp/?wait=2": dial tcp 127.0.0.1:9: connect: connection refused`},
		{"a url.Error whose cause quotes the key", &url.Error{Op: "Get", URL: "http://x/", Err: errors.New("bad header s3cret-key")},
			`Get "http://x/": bad header …`},
		{"a url.Error whose cause quotes the API key", &url.Error{Op: "Get", URL: "http://x/",
			Err: errors.New("bad header Bearer tm_abcdefghijklmnopqrstuvwxyz234567")}, `Get "http://x/": bad header Bearer …`},
		{"the service's error", &Error{Status: 400, Message: "no such thing as XJOB SECRET/TOKEN"}, "no such thing as … (HTTP 400)"},
		{"any other", errors.New("GET /inboxes/XJOB%20SECRET%2FTOKEN/: too large"), "GET /inboxes/…/: too large"},
		{"one without a secret", context.DeadlineExceeded, "context deadline exceeded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := s.redact(c.err)
			if got.Error() != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
			if _, service := c.err.(*Error); !service && !errors.Is(got, c.err) && !errors.Is(got, errors.Unwrap(c.err)) {
				t.Errorf("%v no longer wraps %v", got, c.err)
			}
		})
	}
	var e *Error
	if err := s.redact(&Error{Status: 404, Message: "Inbox not found"}); !errors.As(err, &e) || e.Status != 404 {
		t.Errorf("an *Error redacted: %#v", err)
	}
	if s.redact(nil) != nil {
		t.Error("nil redacted is not nil")
	}
	if err := secretsOf("/inboxes/", "", "").redact(ErrNotYet); err != ErrNotYet {
		t.Errorf("no secrets: %v", err)
	}
}
