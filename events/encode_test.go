package events

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestEncodeWritesTheEnvelopeAsJSONDoes: the envelope Encode writes by
// hand is the one json.Marshal makes of the envelope type, for events of
// every shape of time, and a MailReceived's sealed content follows it
// after a newline.
func TestEncodeWritesTheEnvelopeAsJSONDoes(t *testing.T) {
	t.Parallel()
	times := []time.Time{
		time.Date(2026, 11, 28, 20, 1, 2, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600)),
		time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.UTC),
		time.Unix(0, 0),
	}
	payloads := []Payload{
		&InboxCreated{InboxID: "i", Address: "a@b.test", Token: "<&>\u2028"},
		&MailReceived{InboxID: "i", MessageID: "m", Key: 7, Size: 3, Sealed: []byte("sealed\nbytes\x00")},
		&MailReceived{InboxID: "i", MessageID: "m"},
		&Deleted{InboxID: "i", MessageID: "m"},
	}
	for _, at := range times {
		for _, p := range payloads {
			got, err := Encode(p, at)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(p)
			want, _ := json.Marshal(envelope{Type: p.EventType(), Version: writtenVersion(p), Time: at.UTC(), Data: data})
			if m, ok := p.(*MailReceived); ok && len(m.Sealed) > 0 {
				want = append(append(want, '\n'), m.Sealed...)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%T at %v:\n got %s\nwant %s", p, at, got, want)
			}
		}
	}
}
