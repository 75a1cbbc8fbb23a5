package client

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// What a sender wrote (a subject, a code, a link's URL) reaches whoever
// prints it: a terminal runs the escape sequences in it (ESC [ ... moves
// the cursor and rewrites lines, ESC ] sets the title or writes the
// clipboard, C1 controls such as U+009B do as much on some terminals), and
// bidirectional controls (U+202E) and invisible characters make a text
// read as something else. Printable and PrintableJSON give what a command
// prints with every such character written out, so that it shows and
// does nothing.

// hidden tells the characters Printable escapes: the C0 and C1 controls
// and DEL, the format characters (bidirectional controls, zero-width
// characters, U+FEFF), line and paragraph separators, and the other
// default-ignorable code points (Hangul fillers, variation selectors).
func hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Bidi_Control,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// Printable returns s with every hidden character written out as Go
// writes it in a string: \x1b, \u202e (and a byte that is not UTF-8 as
// \xff). A string without them is returned as it is.
func Printable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && hidden(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// PrintableJSON returns a JSON text with every hidden character in its
// strings written as a JSON escape (\u001b, \u202e, and a surrogate pair
// beyond U+FFFF), which a JSON reader reads back as the same character,
// and every byte that is not UTF-8 as \ufffd. The white space between
// tokens is left alone.
func PrintableJSON(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	inString, escaped := false, false
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\ufffd`...)
		case hidden(r) && (inString || r != '\t' && r != '\n' && r != '\r'):
			// Outside a string only a hostile server writes one: not JSON,
			// and never a command to the terminal.
			out = appendJSONEscape(out, r)
			escaped = false
		default:
			out = append(out, b[i:i+n]...)
			switch {
			case escaped:
				escaped = false
			case inString && r == '\\':
				escaped = true
			case r == '"':
				inString = !inString
			}
		}
		i += n
	}
	return out
}

func appendJSONEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		return fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
	}
	return fmt.Appendf(out, `\u%04x`, r)
}
