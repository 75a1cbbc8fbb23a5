package api

import (
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
	h, err := p.hash(long)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, long) || !strings.HasPrefix(h, "$2a$04$") {
		t.Errorf("hash %q", h)
	}
	if !p.match(h, long) || p.match(h, strings.Replace(long, "a", "b", 1)) || p.match(h, "") {
		t.Errorf("%q matches what it should not, or not its password", h)
	}
	if cost, err := bcrypt.Cost(p.none()); err != nil || cost != bcrypt.MinCost {
		t.Errorf("the absent account's hash: cost %d (%v), want %d", cost, err, bcrypt.MinCost)
	}
	if p.match("", "") || p.match("", "anything") {
		t.Error("an account without a password matched")
	}
}
