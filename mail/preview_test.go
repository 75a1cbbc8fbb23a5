package mail

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
		// Inline elements join the words beside them; others part them.
		{"", "<HTML><head><title>Mail</title></head><H1>Welcome</H1><p>Code: <B>904512</B>.<br>Thanks,<!-- x --></p><td>a</td><td>b</td>", "Welcome Code: 904512. Thanks, a b"},
		{"", "<p>Hi <a href=\"https://x.example/\">there</a>, <span style=\"color:red\">you</span><sup>2</sup></p>", "Hi there, you2"},
		// A style longer than the HTML a preview reads is skipped whole.
		{"", "<style>" + strings.Repeat("p { color: red }\n", 1000) + "</style><p>After the style.</p>", "After the style."},
		// The text part, when there is one, as its sender wrote it.
		{"Hi *Jane*,\r\n  your code", "<p>Hi <b>Jane</b></p>", "Hi *Jane*, your code"},
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
