package sealed

import (
	"errors"
	"strings"
	"tempmail/mailbox"
	"testing"
)

// What an open returned is kept until the message is removed; a failed
// open keeps nothing; the cache holds no more than its budget.
func TestCacheKeepsWhatOpenedWithinItsBudget(t *testing.T) {
	t.Parallel()
	cc := NewCache(64 << 10)
	opens := 0
	open := func() (*mailbox.Content, error) {
		opens++
		return &mailbox.Content{Subject: "hi"}, nil
	}
	first, err := cc.Open("m1", open)
	if err != nil || first.Subject != "hi" {
		t.Fatalf("open: %+v, %v", first, err)
	}
	if again, _ := cc.Open("m1", open); again != first || opens != 1 {
		t.Errorf("not kept: %d opens", opens)
	}
	cc.Remove("m1")
	if again, _ := cc.Open("m1", open); again == first || opens != 2 {
		t.Errorf("removed, and still kept: %d opens", opens)
	}
	failed := errors.New("gone")
	if _, err := cc.Open("m2", func() (*mailbox.Content, error) { return nil, failed }); !errors.Is(err, failed) || cc.get("m2") != nil {
		t.Errorf("a failed open: %v, kept %v", err, cc.get("m2") != nil)
	}
	for i := range 100 {
		id := strings.Repeat("x", i+1)
		if _, err := cc.Open(id, func() (*mailbox.Content, error) { return &mailbox.Content{Text: strings.Repeat("t", 4<<10)}, nil }); err != nil {
			t.Fatal(err)
		}
		if cc.bytes > cc.maxBytes {
			t.Fatalf("holds %d bytes, over its budget of %d", cc.bytes, cc.maxBytes)
		}
	}
	cc.Clear()
	if cc.bytes != 0 || cc.get("m1") != nil {
		t.Errorf("cleared, still holds %d bytes", cc.bytes)
	}
}
