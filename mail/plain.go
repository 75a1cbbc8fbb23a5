package mail

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"

	"github.com/jhillyerd/enmime/v2"
)

// A message's header block and body, split as enmime and net/mail are to
// read them, and what a plain text message needs no MIME decoding for
// (Parse's shortcut).

// splitHeader divides raw into its header block, ended by the empty line
// RFC 5322 puts between header and body, and its body. Where a line that
// is no header ends the block (isHeaderLine), the empty line is added:
// enmime and net/mail would otherwise fold that line into the header
// before it, or refuse the message. The raw message stays as it came.
func splitHeader(raw []byte) (head io.Reader, body []byte) {
	for i := 0; i < len(raw); {
		next := len(raw)
		if eol := bytes.IndexByte(raw[i:], '\n'); eol >= 0 {
			next = i + eol + 1
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(raw[i:next], []byte("\n")), []byte("\r"))
		switch {
		case len(line) == 0:
			return bytes.NewReader(raw[:next]), raw[next:] // an empty line ends it already
		case line[0] == ' ' || line[0] == '\t', isHeaderLine(line):
			i = next
			continue
		}
		blank := "\r\n"
		if !bytes.HasSuffix(raw[:next], []byte("\r\n")) {
			blank = "\n"
		}
		return io.MultiReader(bytes.NewReader(raw[:i]), strings.NewReader(blank)), raw[i:]
	}
	return bytes.NewReader(raw), nil
}

// headerBlockEnded reads raw with the header block ended (splitHeader).
func headerBlockEnded(raw []byte) io.Reader {
	head, body := splitHeader(raw)
	return io.MultiReader(head, bytes.NewReader(body))
}

// mayBePlain says whether, by its top-level headers, the message is a
// single part of plain text whose body needs no decoding: no
// Content-Type or text/plain in an ASCII-compatible charset, no transfer
// encoding to undo, and every byte of the body 7-bit, so that any such
// charset reads it as it is. enmime then reads the header block alone,
// and plainBody confirms what it found.
func mayBePlain(headers map[string]string, body []byte) bool {
	for name, v := range headers {
		switch strings.ToLower(name) {
		case "content-type":
			if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(v)), "text/plain") {
				return false
			}
		case "content-transfer-encoding":
			if !identityEncoding(v) {
				return false
			}
		}
	}
	return sevenBit(body)
}

// sevenBit says whether every byte of b is below 0x80, eight at a time.
func sevenBit(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// plainBody says whether enmime, from the header block alone, read the
// message as mayBePlain expects: one text/plain part in an
// ASCII-compatible charset (or none) without a transfer encoding.
func plainBody(root *enmime.Part) bool {
	if root == nil || root.ContentType != "text/plain" || root.FirstChild != nil {
		return false
	}
	switch strings.ToLower(root.Charset) {
	case "", "us-ascii", "ascii", "utf-8", "utf8":
	default:
		return false
	}
	return identityEncoding(root.Header.Get("Content-Transfer-Encoding"))
}

// identityEncoding says whether a Content-Transfer-Encoding leaves the
// body as it is.
func identityEncoding(cte string) bool {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "", "7bit", "8bit", "binary":
		return true
	}
	return false
}

// unixLinesOf is unixLines(string(b)), made in one copy.
func unixLinesOf(b []byte) string {
	n := bytes.Count(b, []byte("\r\n"))
	if n == 0 {
		return string(b)
	}
	var out strings.Builder
	out.Grow(len(b) - n)
	for {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			out.Write(b)
			return out.String()
		}
		out.Write(b[:i])
		out.WriteByte('\n')
		b = b[i+2:]
	}
}
