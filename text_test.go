package tempmail

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestTruncateNeverSplitsACharacter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // é is two bytes: not cut in half
		{"héllo", 3, "hé"},
		{"日本語", 4, "日"},
		{"😀x", 3, ""},
		{"a\xffb", 10, "a\uFFFDb"}, // invalid UTF-8 becomes U+FFFD
		{"", 0, ""},
	} {
		got := Truncate(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) || len(got) > max(c.n, len(c.want)) {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		b, _ := json.Marshal(got)
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != got {
			t.Errorf("Truncate(%q, %d) = %q does not survive JSON: %q", c.in, c.n, got, back)
		}
	}
	if got := Excerpt("héllo wörld", 3); got != "hé…" {
		t.Errorf("Excerpt: %q", got)
	}
	if got := Excerpt("short", 64); got != "short" {
		t.Errorf("Excerpt of a short value: %q", got)
	}
}
