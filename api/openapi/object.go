package openapi

import (
	"bytes"
	"encoding/json"
)

// An object is a JSON object whose members keep their order.
type object []member

type member struct {
	k string
	v any
}

func (o *object) set(k string, v any) { *o = append(*o, member{k, v}) }

func (o *object) setString(k, v string) {
	if v != "" {
		o.set(k, v)
	}
}

// write writes v as compact JSON, without escaping <, > and & (the
// document is no HTML).
func write(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case object:
		buf.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, m.k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := write(buf, m.v); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		buf.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, x); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case json.RawMessage:
		return json.Compact(buf, v)
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}
