package wire

import (
	"time"
)

// Layout is how Time is written: RFC 3339, UTC, microseconds
// (API.md "Conventions").
const Layout = "2006-01-02T15:04:05.000000Z"

// Time is a timestamp as tempmail writes it: Layout; the zero time is null.
type Time time.Time

// MarshalJSON writes t in Layout; the zero time is null.
func (t Time) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + time.Time(t).UTC().Format(Layout) + `"`), nil
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
