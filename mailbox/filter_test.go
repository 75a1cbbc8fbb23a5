package mailbox

import "testing"

func TestFilterMatchesEachFieldWhereverItMayOccur(t *testing.T) {
	t.Parallel()
	h := &Head{From: "shop@example.com", FromName: "The Shop", Subject: "Your Code: 482913",
		To: []string{"first@one.test"}, Cc: []string{"copy@two.test"}}
	const address = "me@mail.test"
	for _, c := range []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{From: "SHOP@"}, true},
		{Filter{From: "the shop"}, true},
		{Filter{From: "other"}, false},
		{Filter{Subject: "your code"}, true},
		{Filter{Subject: "password"}, false},
		{Filter{To: "me@MAIL"}, true},
		{Filter{To: "first@"}, true},
		{Filter{To: "copy@two"}, true},
		{Filter{To: "nobody"}, false},
		{Filter{From: "shop", Subject: "code", To: "copy"}, true},
		{Filter{From: "shop", Subject: "code", To: "nobody"}, false},
	} {
		if got := c.f.Match(h, address); got != c.want {
			t.Errorf("%+v matched %v, want %v", c.f, got, c.want)
		}
		if c.f.Empty() != (c.f == Filter{}) {
			t.Errorf("%+v: Empty is %v", c.f, c.f.Empty())
		}
	}
}
