package events

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/inbucket/html2text"

	"tempmail/mail"
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
// its Content has that rendering as Text and TextFromHTML set, and its
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

// previewOf is the preview of c, as Preview makes it.
func previewOf(c mail.Message) string {
	if c.TextFromHTML {
		return Preview("", c.HTML)
	}
	return Preview(c.Text, c.HTML)
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

// Content stored before its record said how its preview was made
// (contentRecord.PreviewRule) had, for mail without a text part, the
// preview of the HTML's rendering: `******* Welcome ******* Your code is
// *904512*.`. When such a record is read, its preview is made again from
// the HTML, as Preview makes it now.

// previewRule is the rule a record's Preview was made by: 2, previewOf's;
// 0 (none recorded), the text's, whatever it was.
const previewRule = 2

// legacyRenderBytes bounds how much of a stored message's HTML is
// rendered to tell whether its text is that rendering.
const legacyRenderBytes = 8 << 10

// upgradePreview makes the preview of content stored under an earlier
// rule again: from its HTML when it has no text, or when its text is the
// HTML's rendering (and then marks it so); else it stays as it was.
func upgradePreview(c *mail.Message) {
	switch {
	case c.HTML == "" || c.TextFromHTML:
		return
	case c.Text == "":
		c.Preview = previewOf(*c)
	case renderedFromHTML(c.Text, c.HTML):
		c.TextFromHTML = true
		c.Preview = previewOf(*c)
	}
}

// renderedFromHTML says text is htm as text, as ingest made it for mail
// without a text part: enmime's rendering (html2text), with CRLF as LF. It
// renders at most the first legacyRenderBytes of htm: the rendering of
// HTML cut short says, up to its last paragraph, what the whole one's
// does.
func renderedFromHTML(text, htm string) bool {
	cut := len(htm) > legacyRenderBytes
	r, err := html2text.FromString(htm[:min(len(htm), legacyRenderBytes)])
	if err != nil {
		return false
	}
	r = strings.ReplaceAll(r, "\r\n", "\n")
	if cut {
		i := strings.LastIndex(r, "\n\n")
		if i < 0 {
			return false
		}
		r = r[:i]
	}
	return strings.TrimSpace(r) != "" && strings.HasPrefix(text, r)
}
