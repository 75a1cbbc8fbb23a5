package mailtm

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// Passwords are hashed at bcrypt's default cost unless told otherwise;
// every byte of a password of up to 128 counts (bcrypt alone reads 72);
// an absent account is checked against a hash of the same cost, and
// matches nothing.
func TestPasswordsHashAtTheirCostAndMatchTheirPasswordAlone(t *testing.T) {
	t.Parallel()
	if p := newPasswords(0); p.cost != bcrypt.DefaultCost {
		t.Errorf("the default cost is %d, want bcrypt's %d", p.cost, bcrypt.DefaultCost)
	}
	p := newPasswords(bcrypt.MinCost)
	long := strings.Repeat("p", 100) + "a" + strings.Repeat("q", 27)
	ctx := t.Context()
	h, err := p.hash(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, long) || !strings.HasPrefix(h, "$2a$04$") {
		t.Errorf("hash %q", h)
	}
	match := func(hash, password string) bool {
		ok, err := p.match(ctx, hash, password)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !match(h, long) || match(h, strings.Replace(long, "a", "b", 1)) || match(h, "") {
		t.Errorf("%q matches what it should not, or not its password", h)
	}
	if cost, err := bcrypt.Cost(p.none()); err != nil || cost != bcrypt.MinCost {
		t.Errorf("the absent account's hash: cost %d (%v), want %d", cost, err, bcrypt.MinCost)
	}
	if match("", "") || match("", "anything") {
		t.Error("an account without a password matched")
	}
}

// Hashes wait their turn, one a core: a check that finds no room before
// its request ends is refused as unavailable, not run.
func TestPasswordsAreCheckedAFewAtATime(t *testing.T) {
	t.Parallel()
	p := newPasswords(bcrypt.MinCost)
	var releases []func()
	for range cap(p.room) {
		release, err := p.turn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.match(ctx, "", "x"); err == nil {
		t.Error("a check ran with every core's room taken")
	}
	for _, release := range releases {
		release()
	}
	if _, err := p.match(t.Context(), "", "x"); err != nil {
		t.Errorf("with room: %v", err)
	}
}
