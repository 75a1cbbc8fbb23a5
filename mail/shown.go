package mail

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How a link's URL is shown, so that it reads as it leads: nothing in it
// invisible, and an internationalized host beside its ASCII form.

// EncodeInvisible percent-encodes (as UTF-8) the characters of a URL that
// show as nothing or change the order others show in: bidirectional
// controls (U+202E RIGHT-TO-LEFT OVERRIDE), zero-width and other format
// characters (U+200B, U+2060, U+FEFF, the soft hyphen), the space
// separators beyond the ASCII space, and the other default-ignorable
// code points (Hangul fillers, variation selectors). A URL that reads one
// way and leads another is the phishing trick; encoded, what was hidden
// is in plain sight, and the URL leads where it led (browsers percent-
// encode them themselves). Other characters, and invalid UTF-8, are left
// as they are; a URL without such characters is returned unchanged.
func EncodeInvisible(s string) string {
	i := strings.IndexFunc(s, invisible)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if !invisible(r) {
			b.WriteRune(r)
			continue
		}
		var enc [utf8.UTFMax]byte
		for _, c := range enc[:utf8.EncodeRune(enc[:], r)] {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// invisible tells the characters EncodeInvisible encodes and cleanText
// drops.
func invisible(r rune) bool {
	return r > 0x7f && r != utf8.RuneError && (unicode.In(r, unicode.Cf, unicode.Zs, unicode.Zl, unicode.Zp,
		unicode.Bidi_Control, unicode.Join_Control, unicode.Other_Default_Ignorable_Code_Point,
		unicode.Variation_Selector) || r == '\u2800') // the blank Braille pattern
}
