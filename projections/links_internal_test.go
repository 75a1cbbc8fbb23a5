package projections

import (
	"testing"

	"tempmail/mailbox"
)

// TestStoredLinksOfContentStoredBefore: content stored before links were kept
// has none at all (nil); its links are found in its bodies when it is
// read. Content with an empty list has none, and is not looked at again.
func TestStoredLinksOfContentStoredBefore(t *testing.T) {
	t.Parallel()
	old := &mailbox.Content{Text: "see https://old.example/a.", HTML: `<a href="https://old.example/b">B</a>`}
	if got := storedLinks(old); len(got) != 2 || got[0] != (mailbox.Link{URL: "https://old.example/b", Text: "B"}) ||
		got[1] != (mailbox.Link{URL: "https://old.example/a"}) {
		t.Errorf("content without links: %v", got)
	}
	none := &mailbox.Content{Text: old.Text, HTML: old.HTML, Links: []mailbox.Link{}}
	if got := storedLinks(none); got == nil || len(got) != 0 {
		t.Errorf("content with no links: %#v", got)
	}
}

// Links kept before invisible characters were encoded are encoded as they
// are read; the stored content, which other reads share, is not changed.
func TestLinksStoredBeforeEncodingAreEncodedWhenRead(t *testing.T) {
	t.Parallel()
	stored := []mailbox.Link{{URL: "https://ok.example/"}, {URL: "https://files.example/a\u202egpj.exe", Text: "invoice"}}
	got := storedLinks(&mailbox.Content{Links: stored})
	want := mailbox.Link{URL: "https://files.example/a%E2%80%AEgpj.exe", Text: "invoice"}
	if len(got) != 2 || got[1] != want || got[0].URL != "https://ok.example/" {
		t.Errorf("got %v, want %v second", got, want)
	}
	if stored[1].URL != "https://files.example/a\u202egpj.exe" {
		t.Errorf("the stored links were changed: %q", stored[1].URL)
	}
}
