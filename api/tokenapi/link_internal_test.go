package tokenapi

import (
	"strings"
	"testing"

	"tempmail/api/family"
	"tempmail/mail"
	"tempmail/mailbox"
)

// TestLinksOfContentStoredBefore: content stored before links were kept
// has none at all (nil); its links are found in its bodies when it is
// read. Content with an empty list has none, and is not looked at again.
func TestLinksOfContentStoredBefore(t *testing.T) {
	t.Parallel()
	old := &mailbox.Message{Message: mail.Message{Text: "see https://old.example/a.",
		HTML: `<a href="https://old.example/b">B</a>`}}
	if got := family.LinksOf(old); len(got) != 2 || got[0] != (family.MessageLink{URL: "https://old.example/b", URLASCII: "https://old.example/b", Text: "B"}) ||
		got[1] != (family.MessageLink{URL: "https://old.example/a", URLASCII: "https://old.example/a"}) {
		t.Errorf("content without links: %v", got)
	}
	none := &mailbox.Message{Message: mail.Message{Text: old.Text, HTML: old.HTML, Links: []mail.Link{}}}
	if got := family.LinksOf(none); got == nil || len(got) != 0 {
		t.Errorf("content with no links: %#v", got)
	}
}

// Links kept before invisible characters were encoded are encoded as they
// are read; the stored content, which other reads share, is not changed.
func TestLinksStoredBeforeEncodingAreEncodedWhenRead(t *testing.T) {
	t.Parallel()
	stored := []mail.Link{{URL: "https://ok.example/"}, {URL: "https://files.example/a\u202egpj.exe", Text: "invoice"}}
	m := &mailbox.Message{Message: mail.Message{Links: stored}}
	got := family.LinksOf(m)
	want := family.MessageLink{URL: "https://files.example/a%E2%80%AEgpj.exe", URLASCII: "https://files.example/a%E2%80%AEgpj.exe", Text: "invoice"}
	if len(got) != 2 || got[1] != want || got[0].URL != "https://ok.example/" {
		t.Errorf("got %v, want %v second", got, want)
	}
	if stored[1].URL != "https://files.example/a\u202egpj.exe" {
		t.Errorf("the stored links were changed: %q", stored[1].URL)
	}
}

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
