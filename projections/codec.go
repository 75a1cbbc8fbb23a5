package projections

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// View entries are JSON, except a message's: its bodies follow its JSON
// head as they are, their lengths in the head, like the content records they
// come from (events.DecodeContent). Bodies are most of a message's bytes, and
// escaping them into JSON and back was the largest cost of writing the views
// of a rebuild. JSON never holds a raw newline, so the first one ends the
// head; an entry without one is plain JSON (a tombstone, or an entry written
// before this format).

// messageHead is a Message without its bodies, and their lengths.
type messageHead struct {
	TextLen int `json:"text_len,omitempty"`
	HTMLLen int `json:"html_len,omitempty"`
	*Message
}

func encode(rec record) ([]byte, error) {
	m, ok := rec.(*Message)
	if !ok {
		return json.Marshal(rec)
	}
	head := *m
	head.Text, head.HTML = "", ""
	data, err := json.Marshal(messageHead{TextLen: len(m.Text), HTMLLen: len(m.HTML), Message: &head})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(data)+1+len(m.Text)+len(m.HTML))
	out = append(append(append(append(out, data...), '\n'), m.Text...), m.HTML...)
	return out, nil
}

func decode(data []byte, rec record) error {
	m, ok := rec.(*Message)
	if !ok {
		return json.Unmarshal(data, rec)
	}
	head, bodies, found := bytes.Cut(data, []byte("\n"))
	if !found {
		return json.Unmarshal(data, rec)
	}
	h := messageHead{Message: m}
	if err := json.Unmarshal(head, &h); err != nil {
		return err
	}
	if h.TextLen < 0 || h.HTMLLen < 0 || h.TextLen > len(bodies) || h.HTMLLen != len(bodies)-h.TextLen {
		return fmt.Errorf("message entry: bodies of %d and %d bytes in %d", h.TextLen, h.HTMLLen, len(bodies))
	}
	m.Text = string(bodies[:h.TextLen])
	m.HTML = string(bodies[h.TextLen:])
	return nil
}
