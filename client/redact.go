package client

import (
	"net/url"
	"strings"
)

// A request's errors are printed, by the CLI into CI logs that are often
// public, and Go's own quote the request: `Get "http://127.0.0.1:9/inboxes/
// <token>/otp/?wait=2": dial tcp ...: connection refused`. The inbox's token
// (in the path), the read key and the key (in headers, and in whatever a
// server echoes) are written as "…" in every error the client returns.

// mask is what a secret is written as.
const mask = "…"

// secrets are the values a request carries that its errors must not show.
type secrets []string

// secretsOf are the secrets of a request to path: the inbox's token, as
// the path has it and as given, the read key and the key.
func secretsOf(path, readKey, key string) secrets {
	var s secrets
	if rest, ok := strings.CutPrefix(path, "/inboxes/"); ok {
		seg, _, _ := strings.Cut(rest, "/")
		s = append(s, seg)
		if raw, err := url.PathUnescape(seg); err == nil && raw != seg {
			s = append(s, raw)
		}
	}
	for _, v := range []string{readKey, key} {
		if v != "" {
			s = append(s, v)
		}
	}
	return s
}

// scrub writes every secret in text as mask.
func (s secrets) scrub(text string) string {
	for _, v := range s {
		if v != "" {
			text = strings.ReplaceAll(text, v, mask)
		}
	}
	return text
}

// redact returns err with every secret written as mask in its text. What
// it wraps stays for errors.Is and errors.As: a url.Error keeps its Op and
// its cause (redacted too), an *Error its status.
func (s secrets) redact(err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *url.Error:
		return &url.Error{Op: e.Op, URL: s.scrub(e.URL), Err: s.redact(e.Err)}
	case *Error:
		out := *e
		out.Message, out.URL = s.scrub(e.Message), s.scrub(e.URL)
		return &out
	}
	if text := err.Error(); s.scrub(text) != text {
		return &redacted{text: s.scrub(text), err: err}
	}
	return err
}

// redacted is an error whose text had a secret in it.
type redacted struct {
	text string
	err  error
}

func (e *redacted) Error() string { return e.text }

// Unwrap gives the cause to errors.Is and errors.As; printing the cause
// itself would show the secret.
func (e *redacted) Unwrap() error { return e.err }
