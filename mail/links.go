package mail

import (
	"fmt"
	"net/url"
	"strings"
	"tempmail/mailbox"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Bounds on what Extract returns, so that a message's links stay a small
// part of its sealed content (which must fit, with its bodies, in one NATS
// message) and of every answer that shows them, whatever the mail holds.
const (
	MaxLinks         = 100       // links per message; the rest are left out
	MaxURLBytes      = 2048      // a longer URL is left out, not cut: a cut URL leads elsewhere
	MaxLinkTextChars = 200       // a link's text is cut to this many characters
	MaxLinkBytes     = 32 << 10  // URLs and texts together; links beyond are left out
	maxInputBytes    = 1 << 20   // of each body; Parse keeps at most 256 KiB anyway
	maxTextBytes     = 4 << 10   // of an <a>'s text gathered before it is cleaned and cut
	maxAltBytes      = 1 << 10   // of an <img alt> standing in for a link's text
	maxHrefBytes     = 4 << 10   // of an href before it is cleaned; longer ones cannot pass MaxURLBytes
	maxTokenBytes    = 256 << 10 // one HTML token; past one larger, the rest of the HTML is not read
)

// Extract returns the http and https links of a message: first the href of
// every <a> in htm, entities decoded, in document order, with the text
// the element shows (or the alt of an image in it); then the URLs written
// out in text, with empty text. A URL is listed once, at its first place,
// with the first non-empty text found for it. The result is never nil, so
// that a caller can tell "no links" from "never looked".
func Extract(text, htm string) []mailbox.Link {
	e := extractor{out: []mailbox.Link{}, at: map[string]int{}}
	e.extract(text, htm)
	return e.out
}

func (e *extractor) extract(text, htm string) {
	e.fromHTML(cut(htm, maxInputBytes))
	e.fromText(cut(text, maxInputBytes))
}

type extractor struct {
	out   []mailbox.Link
	at    map[string]int // URL -> its index in out
	total int            // bytes of URLs and texts in out
	// work counts the bytes each step looks at (a scan, a URL prepared
	// and parsed), so that a test can bound it by the input's size: a
	// mail's bytes must cost time in proportion to their number.
	work int
}

// full says whether nothing more may be added.
func (e *extractor) full() bool { return len(e.out) >= MaxLinks || e.total >= MaxLinkBytes }

// add lists a link, if its URL is an http or https one, new, and within the
// bounds.
func (e *extractor) add(rawURL, text string) {
	e.work += 4*len(rawURL) + len(text) // prepare's passes, valid's parse, cleanText
	u, ok := prepare(rawURL)
	if !ok {
		return
	}
	if i, seen := e.at[u]; seen {
		// Mail repeats its links (a logo and a button to the same page):
		// a URL seen is valid, and only its text may be new.
		if e.out[i].Text == "" && strings.TrimSpace(text) != "" {
			if text = cleanText(text); e.total+len(text) <= MaxLinkBytes {
				e.out[i].Text = text
				e.total += len(text)
			}
		}
		return
	}
	text = cleanText(text)
	if e.full() || e.total+len(u)+len(text) > MaxLinkBytes || !valid(u) {
		return
	}
	e.at[u] = len(e.out)
	e.out = append(e.out, mailbox.Link{URL: u, Text: text})
	e.total += len(u) + len(text)
}

// anchor is an <a> whose end has not been seen yet.
type anchor struct {
	href string
	text strings.Builder
	alt  string
}

// fromHTML walks htm with an HTML5 tokenizer (so that entities, attribute
// quoting and unclosed tags are read as a browser reads them), listing each
// <a href>. An <a> ends at its </a>, at the next <a> (browsers do not nest
// them), or at the end of the document.
func (e *extractor) fromHTML(htm string) {
	if htm == "" {
		return
	}
	e.work += len(htm) // the tokenizer reads each byte once
	z := html.NewTokenizer(strings.NewReader(htm))
	z.SetMaxBuf(maxTokenBytes)
	var open *anchor
	end := func() {
		if open != nil {
			text := open.text.String()
			if strings.TrimSpace(text) == "" {
				text = open.alt
			}
			e.add(open.href, text)
			open = nil
		}
	}
	skip := false // inside <script>, <style> and the like, whose text is not shown
	for !e.full() {
		tt := z.Next()
		switch tt {
		case html.ErrorToken: // the end, or a token past maxTokenBytes
			end()
			return
		case html.TextToken:
			if open != nil && !skip && open.text.Len() < maxTextBytes {
				open.text.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if open != nil && !inline(string(name)) {
				open.text.WriteByte(' ') // "<p>a</p><p>b</p>" reads "a b", not "ab"
			}
			switch string(name) {
			case "a":
				end()
				// <a/> opens a link as <a> does: browsers ignore the slash.
				open = &anchor{href: attr(z, hasAttr, "href", maxHrefBytes)}
			case "img":
				if open != nil && open.alt == "" {
					open.alt = attr(z, hasAttr, "alt", maxAltBytes)
				}
			case "script", "style", "template", "noscript", "title", "textarea":
				skip = tt == html.StartTagToken
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "a":
				end()
			case "script", "style", "template", "noscript", "title", "textarea":
				skip = false
			}
		}
	}
}

// inline tells the elements that do not break the text around them.
func inline(name string) bool {
	switch name {
	case "b", "i", "u", "s", "em", "strong", "span", "font", "small", "big", "sub", "sup", "code", "mark", "abbr",
		"strike", "tt", "q", "cite", "kbd", "samp", "var", "img":
		return true
	}
	return false
}

// attr returns the value of the tag's attribute key (the first, as
// browsers take it), entities decoded; an empty string if it has none or
// its value is longer than max.
func attr(z *html.Tokenizer, more bool, key string, max int) string {
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == key {
			if len(v) > max {
				return ""
			}
			return string(v)
		}
	}
	return ""
}

// fromText lists the http and https URLs written out in text: each runs
// from its scheme to white space, a quote or an angle bracket, less the
// punctuation that ends the sentence around it.
func (e *extractor) fromText(text string) {
	for i := 0; !e.full(); {
		// A URL is found by its "://" (one fast search, no lowered copy
		// of the text), then its scheme is read backwards from there.
		j := strings.Index(text[i:], "://")
		if j < 0 {
			e.work += len(text) - i
			return
		}
		e.work += j + 3
		at := i + j
		i = at + 3
		var start int
		switch {
		case at >= 5 && asciiEqualFold(text[at-5:at], "https"):
			start = at - 5
		case at >= 4 && asciiEqualFold(text[at-4:at], "http"):
			start = at - 4
		default:
			continue
		}
		if start > 0 {
			// Part of a longer word ("xhttp://") is not a URL's start.
			if r, _ := utf8.DecodeLastRuneInString(text[:start]); unicode.IsLetter(r) || unicode.IsDigit(r) {
				continue
			}
		}
		n := strings.IndexFunc(text[start:], endsURL)
		if n < 0 {
			n = len(text) - start
		}
		e.work += n
		u, looked := trimTrailing(text[start : start+n])
		e.work += looked
		i = max(i, start+n)
		e.add(u, "")
	}
}

// endsURL tells the characters that end a URL written out in text.
func endsURL(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == '<' || r == '>' || r == '"' || r == '`' ||
		r == utf8.RuneError
}

// trimTrailing drops what ends the sentence around a URL rather than the
// URL: final punctuation, and a closing bracket that the URL did not open
// ("(see https://example.com/a)"). The brackets are counted once, and
// the counts kept as it trims, so that a URL of a thousand ")" costs a
// thousand steps, not a million. looked is the bytes it looked at.
func trimTrailing(u string) (trimmed string, looked int) {
	var opened, closed [3]int // of (), [] and {}
	for i := 0; i < len(u); i++ {
		if k := strings.IndexByte("([{", u[i]); k >= 0 {
			opened[k]++
		} else if k := strings.IndexByte(")]}", u[i]); k >= 0 {
			closed[k]++
		}
	}
	looked = len(u)
	for u != "" {
		looked++
		last := u[len(u)-1]
		switch last {
		case '.', ',', ';', ':', '!', '?', '\'', '*':
			u = u[:len(u)-1]
			continue
		case ')', ']', '}':
			k := strings.IndexByte(")]}", last)
			if opened[k] < closed[k] {
				closed[k]--
				u = u[:len(u)-1]
				continue
			}
		}
		return u, looked
	}
	return u, looked
}

// Clean returns href as a link to follow, and whether it is one: an
// absolute http or https URL with a host, at most MaxURLBytes. As browsers
// do, it drops leading and trailing spaces and control characters and every
// tab and newline, and it encodes the few characters they encode (spaces,
// quotes, angle brackets). A backslash or any other control character
// refuses the URL: browsers and URL parsers disagree on where such a URL
// leads, and a link that reads one way and opens another is the phishing
// trick to avoid.
func Clean(href string) (string, bool) {
	if s, ok := prepare(href); ok && valid(s) {
		return s, true
	}
	return "", false
}

// prepare is the cheap half of Clean: the URL as browsers read it, and
// false if it is too long or holds what no link to follow may.
func prepare(href string) (string, bool) {
	s := strings.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	if len(s) > MaxURLBytes*3 {
		return "", false
	}
	s = encodeAsBrowsers(s)
	if len(s) > MaxURLBytes || !utf8.ValidString(s) || strings.ContainsRune(s, '\\') ||
		strings.ContainsFunc(s, unicode.IsControl) {
		return "", false
	}
	return s, true
}

// valid is the other half: s parses as an absolute http or https URL with
// a host.
func valid(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

// encodeAsBrowsers drops tabs and line ends and percent-encodes spaces,
// quotes, angle brackets and backticks, as browsers do to an href, and
// the characters that cannot be seen (EncodeInvisible).
func encodeAsBrowsers(s string) string {
	const special = "\t\n\r \"<>`"
	if !strings.ContainsAny(s, special) {
		return EncodeInvisible(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\t', '\n', '\r':
		case ' ', '"', '<', '>', '`':
			b.WriteString(fmt.Sprintf("%%%02X", c))
		default:
			b.WriteByte(c)
		}
	}
	return EncodeInvisible(b.String())
}

// cleanText is a link's text as one line: white space folded, control,
// bidirectional formatting and other invisible characters dropped (they
// could make the text read as something else), at most MaxLinkTextChars
// characters.
func cleanText(s string) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		switch {
		case n == MaxLinkTextChars:
			return b.String()
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || invisible(r) || r == utf8.RuneError:
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
			if n++; n == MaxLinkTextChars {
				return b.String()
			}
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// asciiEqualFold says whether s is lower, an ASCII word, in any case.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != lower[i] && c+'a'-'A' != lower[i] {
			return false
		}
	}
	return true
}

// cut bounds s to at most n bytes, on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
