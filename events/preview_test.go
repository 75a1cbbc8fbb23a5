package events

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPreviewFoldsSpaceAndStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	words := strings.Repeat("wörd ", 100)
	cases := []struct{ text, html, want string }{
		{"  Hello,\r\n\n\tworld  ", "", "Hello, world"},
		{"", "<p>from the <b>html</b></p><style>p{}</style>&amp; more", "from the html & more"},
		{"a \xff b\xfec", "", "a bc"},
		{"", "", ""},
		{"\u00a0\u2003 x \ufffd", "", "x \ufffd"},
		// The first PreviewChars (200) characters: 40 words and their spaces.
		{words, "", strings.Repeat("wörd ", 40)},
	}
	for _, c := range cases {
		if got := Preview(c.text, c.html); got != c.want {
			t.Errorf("Preview(%q, %q) = %q, want %q", c.text, c.html, got, c.want)
		}
	}
	if got := Preview(strings.Repeat("x", 1<<20), ""); utf8.RuneCountInString(got) != PreviewChars {
		t.Errorf("a 1 MiB body: %d characters, want %d", utf8.RuneCountInString(got), PreviewChars)
	}
}

func BenchmarkPreview(b *testing.B) {
	text := strings.Repeat("Your sign-up code is 482913. Welcome to the service!\r\n", 80)
	for b.Loop() {
		Preview(text, "")
	}
}
