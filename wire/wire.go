package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"tempmail/mailbox"
	"time"
)

// Layout is how Time is written: RFC 3339, UTC, microseconds
// (docs/API.md "Conventions").
const Layout = "2006-01-02T15:04:05.000000Z"

// Time is a timestamp as tempmail writes it: Layout; the zero time is
// null. It embeds time.Time, so that a client reads it as one
// (m.ReceivedAt.Before(t), m.ReceivedAt.Time).
type Time struct{ time.Time }

// At is t as tempmail writes it.
func At(t time.Time) Time { return Time{t} }

// MarshalJSON writes t in Layout; the zero time is null.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format(Layout) + `"`), nil
}

// UnmarshalJSON reads an RFC 3339 time (with any fraction of a second), or
// null as the zero time.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*t = Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a time must be a string: %w", err)
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	*t = Time{at}
	return nil
}

// SummaryAOf is a message as family A lists it and message.received
// webhooks carry it.
func SummaryAOf(m *mailbox.Summary) EmailSummaryA {
	return EmailSummaryA{ID: m.ID, FromEmail: m.From, FromName: m.FromName, Subject: m.Subject,
		ReceivedAt: At(m.ReceivedAt), IsRead: m.IsRead, Size: m.Size, HasAttachments: len(m.Attachments) > 0,
		Preview: m.Preview}
}

// EmailSummaryA is a message as family A lists it.
type EmailSummaryA struct {
	ID             string `json:"id"`
	FromEmail      string `json:"from_email"`
	FromName       string `json:"from_name"`
	Subject        string `json:"subject"`
	ReceivedAt     Time   `json:"received_at"`
	IsRead         bool   `json:"is_read"`
	Size           int64  `json:"size"`
	HasAttachments bool   `json:"has_attachments"`
	Preview        string `json:"preview"`
}
