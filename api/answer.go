package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Answers are encoded as they are written: through a buffer of
// answerBuffer bytes to the connection, a list item by item, a message's
// bodies piece by piece. An answer never exists whole in memory, so what a
// request costs is one item and the buffer, whatever the messages hold, and
// a client that stops reading holds no more than that and its socket's
// buffer while its write times out.
//
// A list page also ends early once pageBudget bytes are written, whatever
// its limit: the client knows from X-Total-Count (family B: total) that
// there is more, and asks for the rest with offset set to what it has
// (API.md "Lists: pages and filters").
const (
	answerBuffer = 32 << 10
	pageBudget   = 8 << 20
)

// longText is a string an answer may carry at length (a message's text
// and HTML bodies): it is escaped straight into the answer's buffer rather
// than encoded whole. It marshals as a string anywhere else.
type longText string

var longTextType = reflect.TypeFor[longText]()

// longTexts is a value with longText fields (a message as a family shows
// it), which says how long they are together. Such a value is written
// field by field when they are long, and whole otherwise (quicker: a
// tenth of the time for a small message).
type longTexts interface{ longTextLen() int }

// streamAbove is the length of long text from which a value is written
// field by field.
const streamAbove = 64 << 10

// isLong reports whether v is to be written field by field.
func isLong(v any) bool {
	l, ok := v.(longTexts)
	return ok && l.longTextLen() >= streamAbove
}

// answer writes one JSON answer as it encodes it.
type answer struct {
	out     *countingWriter
	bw      *bufio.Writer
	scratch bytes.Buffer  // one small value at a time
	enc     *json.Encoder // into scratch
}

// countingWriter counts what reaches the connection and keeps the first
// error, after which nothing more is written.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// newAnswer sends the status and headers of a JSON answer, and returns its
// body's writer.
func newAnswer(w http.ResponseWriter, status int) *answer {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	a := &answer{out: &countingWriter{w: w}}
	a.bw = bufio.NewWriterSize(a.out, answerBuffer)
	a.enc = json.NewEncoder(&a.scratch)
	a.enc.SetEscapeHTML(false)
	return a
}

// writeJSON answers with v: encoded whole, as encoding/json does, unless
// it carries long texts.
func writeJSON(w http.ResponseWriter, status int, v any) {
	if isLong(v) {
		a := newAnswer(w, status)
		a.value(v)
		a.finish()
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writePage answers 200 with a JSON array of up to n items, item(i) the
// i-th, ending early past pageBudget.
func writePage(w http.ResponseWriter, n int, item func(i int) any) {
	a := newAnswer(w, http.StatusOK)
	a.raw("[")
	for i := 0; i < n && a.more(); i++ {
		if i > 0 {
			a.raw(",")
		}
		a.value(item(i))
	}
	a.raw("]")
	a.finish()
}

// written is how many bytes of the body are written, buffered ones too.
func (a *answer) written() int64 { return a.out.n + int64(a.bw.Buffered()) }

// more reports whether a page may take another item: the client still
// reads, and the page is within its budget.
func (a *answer) more() bool { return a.out.err == nil && a.written() < pageBudget }

// finish ends the answer as encoding/json does, with a newline, and sends
// what is buffered.
func (a *answer) finish() {
	a.raw("\n")
	_ = a.bw.Flush()
}

func (a *answer) raw(s string) { _, _ = a.bw.WriteString(s) }

// value writes v as encoding/json would (without escaping HTML): whole,
// or, when it carries long texts, field by field, its longText fields
// escaped piece by piece.
func (a *answer) value(v any) {
	if a.out.err != nil {
		return // the client is gone; the handler ends with nothing more sent
	}
	if !isLong(v) {
		a.whole(v)
		return
	}
	rv := reflect.Indirect(reflect.ValueOf(v))
	a.raw("{")
	a.fields(rv, true)
	a.raw("}")
}

// whole writes v encoded by encoding/json.
func (a *answer) whole(v any) {
	a.scratch.Reset()
	if err := a.enc.Encode(v); err != nil {
		a.out.err = err
		return
	}
	_, _ = a.bw.Write(bytes.TrimSuffix(a.scratch.Bytes(), []byte("\n")))
}

// fields writes a struct's fields as encoding/json names them (json tags,
// omitempty, omitzero; embedded structs flattened); first says no field
// was written before. It reports whether it wrote any.
func (a *answer) fields(v reflect.Value, first bool) bool {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		fv := v.Field(i)
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if a.fields(fv, first) {
				first = false
			}
			continue
		}
		if empty(fv, opts) {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !first {
			a.raw(",")
		}
		first = false
		a.raw(strconv.Quote(name) + ":")
		if fv.Type() == longTextType {
			a.text(fv.String())
		} else {
			a.whole(fv.Interface())
		}
	}
	return !first
}

// empty reports whether a field with these tag options is left out.
func empty(v reflect.Value, opts string) bool {
	has := func(o string) bool { return strings.Contains(","+opts+",", ","+o+",") }
	if has("omitzero") && v.IsZero() {
		return true
	}
	if !has("omitempty") {
		return false
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

const hexDigits = "0123456789abcdef"

// text writes s as a JSON string, escaped as encoding/json escapes it
// (without HTML escaping): straight into the buffer, which goes out to the
// connection each time it fills.
func (a *answer) text(s string) {
	bw := a.bw
	_ = bw.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			_, _ = bw.WriteString(s[start:i])
			switch b {
			case '"', '\\':
				_ = bw.WriteByte('\\')
				_ = bw.WriteByte(b)
			case '\b':
				_, _ = bw.WriteString(`\b`)
			case '\f':
				_, _ = bw.WriteString(`\f`)
			case '\n':
				_, _ = bw.WriteString(`\n`)
			case '\r':
				_, _ = bw.WriteString(`\r`)
			case '\t':
				_, _ = bw.WriteString(`\t`)
			default:
				_, _ = bw.WriteString(`\u00`)
				_ = bw.WriteByte(hexDigits[b>>4])
				_ = bw.WriteByte(hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			_, _ = bw.WriteString(s[start:i])
			_, _ = bw.WriteString(`\ufffd`)
		case c == '\u2028' || c == '\u2029':
			_, _ = bw.WriteString(s[start:i])
			_, _ = bw.WriteString(`\u202`)
			_ = bw.WriteByte(hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	_, _ = bw.WriteString(s[start:])
	_ = bw.WriteByte('"')
}
