package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	"tempmail/client"
)

// maxWaitTimeout bounds `tempmail wait --timeout`.
const maxWaitTimeout = 24 * time.Hour

// runWait runs `tempmail wait`: it waits for a code (the default), a link
// or a message in an inbox and prints it. Exit status: 0 found, 1 nothing
// within --timeout (one line on stderr), 2 anything else.
func runWait(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tempmail wait", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs, getenv)
	cf.registerToken(fs, "the inbox's `token`")
	otp := fs.Bool("otp", false, "print the newest one-time code (the default)")
	link := fs.Bool("link", false, "print the newest link")
	message := fs.Bool("message", false, "print the newest message, as JSON")
	pattern := fs.String("pattern", "", "for --otp and --link: a `regexp` (RE2) the code or the link's URL matches")
	from := fs.String("from", "", "only messages whose sender (address or name) contains this `text`, in any case")
	subject := fs.String("subject", "", "only messages whose subject contains this `text`, in any case")
	after := fs.String("after", "", "skip mail received up to an `id|time`: a message id (that message and older mail), or an RFC 3339 time\n"+
		"by the service's clock, such as 2026-11-25T10:00:00.25Z (mail received at or before it)")
	timeout := fs.Duration("timeout", time.Minute, "how long to wait; longer than 60s chains held requests; 0: look once")
	setUsage(fs, "usage: tempmail wait [--token T] [--otp | --link | --message] [--pattern RE] [--from S] [--subject S]\n"+
		"                     [--after ID|TIME] [--timeout 60s] [--server URL] [--read-key K] [--key K]\n\n"+
		"Prints the code, the link, or the message as JSON, and exits 0; what matches already counts, unless\n"+
		"--after says to skip it. Nothing within --timeout: exits 1 with one line on stderr. Any other error\n"+
		"exits 2.\n\n")
	if status, done := parseClientFlags(fs, args, stdout, stderr); done {
		return status
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tempmail wait: "+format+"\n", a...)
		return 2
	}
	kinds := 0
	for _, b := range []bool{*otp, *link, *message} {
		if b {
			kinds++
		}
	}
	token := cf.token()
	q := client.Query{From: *from, Subject: *subject, Pattern: *pattern}
	var err error
	switch {
	case token == "":
		return fail("--token (or TEMPMAIL_TOKEN) is required: the token of the inbox to wait on (tempmail inbox new --env prints it)")
	case kinds > 1:
		return fail("choose one of --otp, --link and --message")
	case *message && *pattern != "":
		return fail("--pattern applies to --otp and --link, not --message")
	case *timeout < 0 || *timeout > maxWaitTimeout:
		return fail("--timeout must be from 0s to %s", maxWaitTimeout)
	}
	if q.After, q.AfterTime, err = parseAfter(*after); err != nil {
		return fail("%v", err)
	}
	c, err := cf.client()
	if err != nil {
		return fail("%v", err)
	}
	// A CI job would rather wait out a busy moment than fail on it.
	c.RetryBusy = true
	ctx, stop := signalContext()
	defer stop()
	what := "code"
	switch {
	case *link:
		what = "link"
	case *message:
		what = "message"
	}
	out, err := waitFor(ctx, c, what, token, q, *timeout)
	switch {
	case err == nil:
		fmt.Fprintln(stdout, out)
		return 0
	case errors.Is(err, client.ErrTimeout):
		fmt.Fprintf(stderr, "tempmail wait: no %s within %s\n", what, *timeout)
		return 1
	case ctx.Err() != nil:
		return fail("interrupted")
	}
	return fail("%s", cf.failure(err))
}

// waitFor waits for what ("code", "link" or "message") in the inbox of
// token, and returns it as `tempmail wait` prints it.
func waitFor(ctx context.Context, c *client.Client, what, token string, q client.Query, timeout time.Duration) (string, error) {
	switch what {
	case "link":
		l, err := c.WaitLink(ctx, token, q, timeout)
		if err != nil {
			return "", err
		}
		return client.Printable(l.Link), nil
	case "message":
		m, err := c.WaitMessage(ctx, token, q, timeout)
		if err != nil {
			return "", err
		}
		return string(client.PrintableJSON(m.JSON)), nil
	}
	code, err := c.WaitOTP(ctx, token, q, timeout)
	if err != nil {
		return "", err
	}
	return client.Printable(code.Code), nil
}

// parseAfter reads --after: a message id, or an RFC 3339 time (with or
// without fractions of a second).
func parseAfter(s string) (id string, t time.Time, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return "", t, nil
	}
	if u, err := uuid.Parse(s); err == nil && len(s) == 36 {
		return u.String(), time.Time{}, nil
	}
	return "", time.Time{}, fmt.Errorf("--after %q is neither a message id (such as 01a207a0-b06a-7c83-830c-38ab9f65c45e) "+
		"nor an RFC 3339 time (such as 2026-11-25T10:00:00.25Z)", client.Printable(s))
}
