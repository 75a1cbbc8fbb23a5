package mail

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
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

// ASCII returns u with its host as a browser looks it up: an
// internationalized name (or one percent-encoded) as its A-labels
// (punycode, xn--), lower case; u itself when its host is ASCII already.
// Beside the Unicode form, it tells a look-alike host (xn--pple-43d.com
// for аpple.com with a Cyrillic а) from the real one. It is "" when the
// host is no valid domain name, where no browser goes.
func ASCII(u string) string {
	rest, ok := strings.CutPrefix(u, schemeOf(u)+"://")
	if !ok {
		return u
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	hostStart := strings.LastIndexByte(authority, '@') + 1
	host := authority[hostStart:]
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i] // the port
	}
	if isASCIIHost(host) {
		return u
	}
	name, err := url.PathUnescape(host)
	if err == nil {
		name, err = browserIDNA.ToASCII(name)
	}
	if err != nil || name == "" {
		return ""
	}
	return u[:len(u)-len(rest)] + authority[:hostStart] + name + rest[hostStart+len(host):]
}

// browserIDNA converts a host as the WHATWG URL standard's "domain to
// ASCII" does: UTS 46 mapping, nontransitional, bidi and joiner rules
// checked, and (unlike DNS lookups' strict profile) underscores and
// hyphens where DNS names would not have them allowed.
var browserIDNA = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false),
	idna.CheckHyphens(false), idna.BidiRule(), idna.CheckJoiners(true))

// schemeOf is u's scheme as written (http or https, in any case).
func schemeOf(u string) string {
	if i := strings.IndexByte(u, ':'); i >= 0 {
		return u[:i]
	}
	return ""
}

// isASCIIHost: nothing to convert (no byte outside ASCII, nothing
// percent-encoded).
func isASCIIHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 || h[i] == '%' {
			return false
		}
	}
	return true
}
