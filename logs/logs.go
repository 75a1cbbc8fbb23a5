package logs

import (
	"io"
	"log/slog"
	"net/url"
	"strings"
)

// New returns the process's logger: text (key=value, the default) or JSON
// (one object per line, for log shippers), at level and above.
func New(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// WebhookGiveUp describes an outbound webhook delivery that ran out of
// retries (--webhook-retry-schedule) and will not be tried again.
type WebhookGiveUp struct {
	WebhookID  string // the subscription
	DeliveryID string // the webhook-id header, the same for every attempt
	EventType  string // message.received, inbox.expired, ...
	URL        string // the subscription's target; only its host is logged
	Attempts   int
	LastStatus int    // the last answer's status; 0: none came
	LastError  string // why the last attempt failed, if not a status
}

// WebhookGaveUp logs one line for a delivery given up: the hook the
// outbound webhooks call once per delivery they stop retrying, so that an
// operator can alert on "webhook delivery given up".
//
// The target is logged by host alone, and stripped from the error too (Go's
// HTTP client quotes the whole URL in its errors): a subscriber's URL may
// carry a secret of its own in its path or query.
func WebhookGaveUp(log *slog.Logger, g WebhookGiveUp) {
	host := hostOf(g.URL)
	lastErr := g.LastError
	if g.URL != "" {
		lastErr = strings.ReplaceAll(lastErr, g.URL, host)
	}
	log.Warn("webhook delivery given up", "webhook_id", g.WebhookID, "webhook_event_id", g.DeliveryID,
		"event_type", g.EventType, "host", host, "attempts", g.Attempts, "last_status", g.LastStatus, "last_error", lastErr)
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(invalid URL)"
	}
	return u.Host
}
