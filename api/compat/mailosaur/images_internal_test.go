package mailosaur

import (
	"strings"
	"testing"
)

// TestImagesAreTheHTMLsImgElementsBounded: src and alt as written
// (entities decoded, any case), in document order; none is [] not null;
// a body of many images, or of long attributes, answers within bounds.
func TestImagesAreTheHTMLsImgElementsBounded(t *testing.T) {
	t.Parallel()
	got := mailosaurImages(`<p><IMG SRC=" https://a.example/x.png " ALT="A &amp; B"></p><img src='cid:logo'/><img alt=only-alt>`)
	want := []mailosaurImage{{"https://a.example/x.png", "A & B"}, {"cid:logo", ""}, {"", "only-alt"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("image %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if none := mailosaurImages("<p>no images</p>"); none == nil || len(none) != 0 {
		t.Errorf("no images: %#v", none)
	}
	many := mailosaurImages(strings.Repeat(`<img src="`+strings.Repeat("s", 5000)+`" alt="`+strings.Repeat("a", 5000)+`">`, 500))
	if len(many) != mailosaurMaxImages || len(many[0].Src) > maxImageSrcBytes || len(many[0].Alt) > maxImageAltBytes {
		t.Errorf("500 long images: %d, src %d bytes, alt %d", len(many), len(many[0].Src), len(many[0].Alt))
	}
}
