package tokenapi

import (
	"strings"
	"testing"
)

// A mail's links open in a new tab that cannot reach the page, whatever
// form their href takes: absolute, scheme-relative (//h), or with
// backslashes that browsers read as slashes (/\h, \\h). Before, only
// the absolute ones were rewritten: <a href="//evil.example" target=_self>
// loaded another site in the message's frame, and rel=opener kept
// window.opener.
func TestLinksInNewTabsWhateverTheirForm(t *testing.T) {
	t.Parallel()
	for _, href := range []string{"https://evil.example/", "HTTP:evil.example", "//evil.example/x", "/\\evil.example",
		"\\\\evil.example", "\\/evil.example", " \t//evil.example", "/\t/evil.example", "\n\\\t\\evil.example"} {
		got := linksInNewTabs(`<a href="` + href + `" target="_self" rel="opener">x</a>`)
		if !strings.Contains(got, `target="_blank" rel="noopener noreferrer"`) || strings.Contains(got, "_self") || strings.Contains(got, `"opener"`) {
			t.Errorf("%q: %s", href, got)
		}
	}
	for _, href := range []string{"#top", "/relative", "relative/x", "mailto:a@example.com", "javascript:x", "?q"} {
		in := `<a href="` + href + `" target="_self">x</a>`
		if got := linksInNewTabs(in); got != in {
			t.Errorf("%q: %s, want it as it came", href, got)
		}
	}
}
