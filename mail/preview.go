package mail

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PreviewChars is the length of a list preview.
const PreviewChars = 200

// Preview is the first PreviewChars characters of what a message says, in
// plain words, for lists: its text part as its sender wrote it, or, when it
// has none (text is ""), the words of its HTML, without its markup. Runs of
// white space are folded to one space and bytes that are not UTF-8
// dropped. It reads only as far as the preview reaches: bodies can be
// megabytes.
//
// A message without a text part is shown with its HTML as text (enmime's
// rendering, with rules under headings, *bold* and link URLs in brackets):
// its Message has that rendering as Text and TextFromHTML set, and its
// preview is made from the HTML, never from the rendering.
func Preview(text, htm string) string {
	if text == "" && htm != "" {
		text = htmlText(htm, 16*PreviewChars)
	}
	var b strings.Builder
	b.Grow(min(len(text), 2*PreviewChars))
	n, space := 0, false
	for i := 0; i < len(text) && n < PreviewChars; {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case space:
			b.WriteByte(' ')
			space = false
			if n++; n == PreviewChars {
				continue
			}
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// htmlText is the words of HTML: its text, with its tags, comments,
// scripts, styles and title left out and its entities decoded, a space
// where a tag that is not inline (a paragraph, a heading, a line break, a
// cell) was, and none where an inline one was (`<b>904512</b>.` is
// `904512.`). Enough for a preview, not a renderer: it stops once it has
// written max bytes.
func htmlText(h string, max int) string {
	var b strings.Builder
	for len(h) > 0 && b.Len() < max {
		lt := strings.IndexByte(h, '<')
		if lt < 0 {
			lt = len(h)
		}
		b.WriteString(h[:min(lt, max-b.Len())])
		if h = h[lt:]; h == "" {
			break
		}
		name, closing := tagName(h)
		end := ">"
		switch {
		case strings.HasPrefix(h, "<!--"):
			end = "-->"
		case !closing && (name == "script" || name == "style" || name == "title"):
			end = "</" + name + ">"
		}
		i := indexFold(h, end)
		if i < 0 {
			break
		}
		h = h[i+len(end):]
		if !inlineElements[name] {
			b.WriteByte(' ')
		}
	}
	return html.UnescapeString(b.String())
}

// tagName is the lower-case name of the tag h begins with, and whether it
// closes an element; "" for a comment or a declaration.
func tagName(h string) (name string, closing bool) {
	h = h[1:]
	if closing = strings.HasPrefix(h, "/"); closing {
		h = h[1:]
	}
	n := 0
	for n < len(h) && n < 16 && (h[n] >= 'a' && h[n] <= 'z' || h[n] >= 'A' && h[n] <= 'Z' || h[n] >= '0' && h[n] <= '9') {
		n++
	}
	return strings.ToLower(h[:n]), closing
}

// inlineElements are the HTML elements that sit inside a line of text,
// which a preview joins to the words beside them without a space.
var inlineElements = map[string]bool{
	"a": true, "abbr": true, "b": true, "bdi": true, "bdo": true, "big": true, "cite": true, "code": true,
	"data": true, "del": true, "dfn": true, "em": true, "font": true, "i": true, "ins": true, "kbd": true,
	"label": true, "mark": true, "nobr": true, "q": true, "s": true, "samp": true, "small": true, "span": true,
	"strike": true, "strong": true, "sub": true, "sup": true, "time": true, "tt": true, "u": true, "var": true,
	"wbr": true,
}

// indexFold is strings.Index for an ASCII needle, ignoring ASCII case.
func indexFold(s, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}
