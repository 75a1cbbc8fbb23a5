package sealed

import (
	"strings"

	"github.com/inbucket/html2text"

	"tempmail/mail"
	"tempmail/mailbox"
)

// previewOf is the preview of c, as mail.Preview makes it.
func previewOf(c mailbox.Content) string {
	if c.TextFromHTML {
		return mail.Preview("", c.HTML)
	}
	return mail.Preview(c.Text, c.HTML)
}

// Content stored before its record said how its preview was made
// (contentRecord.PreviewRule) had, for mail without a text part, the
// preview of the HTML's rendering: `******* Welcome ******* Your code is
// *904512*.`. When such a record is read, its preview is made again from
// the HTML, as mail.Preview makes it now.

// previewRule is the rule a record's Preview was made by: 2, previewOf's;
// 0 (none recorded), the text's, whatever it was.
const previewRule = 2

// legacyRenderBytes bounds how much of a stored message's HTML is
// rendered to tell whether its text is that rendering.
const legacyRenderBytes = 8 << 10

// upgradePreview makes the preview of content stored under an earlier
// rule again: from its HTML when it has no text, or when its text is the
// HTML's rendering (and then marks it so); else it stays as it was.
func upgradePreview(c *mailbox.Content) {
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
