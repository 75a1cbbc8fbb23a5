package family

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Answers are encoded as they are written, through a buffer of
// answerBuffer bytes: a list item by item, a message with long bodies
// field by field and its bodies piece by piece. An answer never exists
// whole in memory, so what a request costs is one item and the buffer,
// whatever the messages hold, and a client that stops reading holds no
// more than that and its socket's buffer while its write times out.
//
// A list page also ends early once PageBudget bytes are written, whatever
// its limit: the client knows from X-Total-Count (family B: total) that
// there is more, and asks for the rest with offset set to what it has
// (docs/waiting.md "Lists: pages and filters").
const (
	answerBuffer = 16 << 10
	PageBudget   = 8 << 20
)

// A long text is a string an answer may carry at length (a message's text
// and HTML bodies): a string field tagged answer:"long". It is escaped
// straight into the answer's buffer rather than encoded whole, and
// marshals as a string anywhere else.
func isLongText(f reflect.StructField) bool {
	return f.Type.Kind() == reflect.String && f.Tag.Get("answer") == "long"
}

// longTexts is a value with long text fields (a message as a family shows
// it), which says how long they are together. Such a value is written
// field by field when they are long, and whole otherwise, which is
// quicker (bounded all the same: ingest keeps at most 256 KiB of each body).
type longTexts interface{ LongTextLen() int }

// streamAbove is the length of long text from which a value is written
// field by field.
const streamAbove = 64 << 10

// isLong reports whether v is to be written field by field.
func isLong(v any) bool {
	l, ok := v.(longTexts)
	return ok && l.LongTextLen() >= streamAbove
}

// Answer writes one JSON answer as it encodes it: into buf, which goes out
// to the connection whenever it holds answerBuffer bytes (and at the end),
// so that it holds at most that and the value being encoded.
type Answer struct {
	out *countingWriter
	buf bytes.Buffer
	enc *json.Encoder // into buf
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

// NewAnswer sends the status and headers of a JSON answer, and returns its
// body's writer.
func NewAnswer(w http.ResponseWriter, status int) *Answer {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	a := &Answer{out: &countingWriter{w: w}}
	a.buf.Grow(answerBuffer + 8<<10) // at once, rather than doubling up to it
	a.enc = json.NewEncoder(&a.buf)
	a.enc.SetEscapeHTML(false)
	return a
}

// WriteJSON answers with v: encoded whole, as encoding/json does, unless
// it carries long texts.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	if isLong(v) {
		a := NewAnswer(w, status)
		a.Value(v)
		a.Finish()
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// WritePage answers 200 with a JSON array of up to n items, item(i) the
// i-th, ending early past PageBudget.
func WritePage(w http.ResponseWriter, n int, item func(i int) any) {
	a := NewAnswer(w, http.StatusOK)
	a.Raw("[")
	for i := 0; i < n && a.More(); i++ {
		if i > 0 {
			a.Raw(",")
		}
		a.Value(item(i))
	}
	a.Raw("]")
	a.Finish()
}

// More reports whether a page may take another item: the client still
// reads, and the page is within its budget.
func (a *Answer) More() bool {
	return a.out.err == nil && a.out.n+int64(a.buf.Len()) < PageBudget
}

// flushFull sends buf on once it holds answerBuffer bytes.
func (a *Answer) flushFull() {
	if a.buf.Len() >= answerBuffer {
		a.flush()
	}
}

func (a *Answer) flush() {
	_, _ = a.out.Write(a.buf.Bytes())
	a.buf.Reset()
}

// Finish ends the answer as encoding/json does, with a newline, and sends
// what is buffered.
func (a *Answer) Finish() {
	a.buf.WriteByte('\n')
	a.flush()
}

func (a *Answer) Raw(s string) {
	a.buf.WriteString(s)
	a.flushFull()
}

// Value writes v as encoding/json would (without escaping HTML): whole,
// or, when it carries long texts, field by field, its long text fields
// escaped piece by piece.
func (a *Answer) Value(v any) {
	if a.out.err != nil {
		return // the client is gone; the handler ends with nothing more sent
	}
	if !isLong(v) {
		a.whole(v)
		return
	}
	rv := reflect.Indirect(reflect.ValueOf(v))
	a.Raw("{")
	a.fields(rv, true)
	a.Raw("}")
}

// whole writes v encoded by encoding/json.
func (a *Answer) whole(v any) {
	if err := a.enc.Encode(v); err != nil {
		a.out.err = err
		return
	}
	a.buf.Truncate(a.buf.Len() - 1) // Encode's newline
	a.flushFull()
}

// fields writes a struct's fields as encoding/json names them (json tags,
// omitempty, omitzero; embedded structs flattened); first says no field
// was written before. It reports whether it wrote any.
func (a *Answer) fields(v reflect.Value, first bool) bool {
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
			a.Raw(",")
		}
		first = false
		a.Raw(strconv.Quote(name) + ":")
		if isLongText(f) {
			a.Text(fv.String())
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

// Text writes s as a JSON string, escaped as encoding/json escapes it
// (without HTML escaping), into buf, which goes out each time it fills.
func (a *Answer) Text(s string) {
	buf := &a.buf
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if a.buf.Len() >= answerBuffer {
			buf.WriteString(s[start:i])
			start = i
			a.flush()
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			buf.WriteString(s[start:i])
			switch b {
			case '"', '\\':
				buf.WriteByte('\\')
				buf.WriteByte(b)
			case '\b':
				buf.WriteString(`\b`)
			case '\f':
				buf.WriteString(`\f`)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			default:
				buf.WriteString(`\u00`)
				buf.WriteByte(hexDigits[b>>4])
				buf.WriteByte(hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			buf.WriteString(s[start:i])
			buf.WriteString(`\ufffd`)
		case c == '\u2028' || c == '\u2029':
			buf.WriteString(s[start:i])
			buf.WriteString(`\u202`)
			buf.WriteByte(hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
	a.flushFull()
}
