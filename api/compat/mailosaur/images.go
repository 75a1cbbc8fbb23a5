package mailosaur

import (
	"strings"

	"golang.org/x/net/html"

	"tempmail"
)

// mailosaurHTML is a message's HTML body as the SDK reads it: what every
// body has, and its images (message.html.images), which tests count and
// check the alt text of.
type mailosaurHTML struct {
	mailosaurContent
	Images []mailosaurImage `json:"images"`
}

// mailosaurImage is one <img> of the HTML: its src (a URL, or cid: for an
// image attached to the message) and its alt text, as written.
type mailosaurImage struct {
	Src string `json:"src"`
	Alt string `json:"alt"`
}

// Bounds on what a message's images answer holds, whatever its HTML.
const (
	mailosaurMaxImages = 100
	maxImageSrcBytes   = 2048
	maxImageAltBytes   = 1000
)

// mailosaurImages are the <img> elements of an HTML body, in document
// order; never null.
func mailosaurImages(htm string) []mailosaurImage {
	out := []mailosaurImage{}
	z := html.NewTokenizer(strings.NewReader(htm))
	for len(out) < mailosaurMaxImages {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			if string(name) != "img" {
				continue
			}
			var img mailosaurImage
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "src":
					img.Src = tempmail.Truncate(strings.TrimSpace(string(v)), maxImageSrcBytes)
				case "alt":
					img.Alt = tempmail.Truncate(string(v), maxImageAltBytes)
				}
			}
			out = append(out, img)
		}
	}
	return out
}
