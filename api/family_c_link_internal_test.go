package api

import (
	"testing"

	"tempmail/events"
	"tempmail/projections"
)

// TestLinksOfContentStoredBefore: content stored before links were kept
// has none at all (nil); its links are found in its bodies when it is
// read. Content with an empty list has none, and is not looked at again.
func TestLinksOfContentStoredBefore(t *testing.T) {
	t.Parallel()
	old := &projections.Message{Content: events.Content{Text: "see https://old.example/a.",
		HTML: `<a href="https://old.example/b">B</a>`}}
	if got := linksOf(old); len(got) != 2 || got[0] != (messageLink{URL: "https://old.example/b", Text: "B"}) ||
		got[1] != (messageLink{URL: "https://old.example/a"}) {
		t.Errorf("content without links: %v", got)
	}
	none := &projections.Message{Content: events.Content{Text: old.Text, HTML: old.HTML, Links: []events.Link{}}}
	if got := linksOf(none); got == nil || len(got) != 0 {
		t.Errorf("content with no links: %#v", got)
	}
}
