package faults

import (
	"strings"
	"testing"
	"time"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"a@example.com", "a@example.com", true},
		{"a@example.com", "b@example.com", false},
		{"*@example.com", "anyone@example.com", true},
		{"*@example.com", "anyone@example.org", false},
		{"app+*@example.com", "app+signup@example.com", true},
		{"*", "", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false},
	} {
		if got := Match(c.pattern, c.s); got != c.want {
			t.Errorf("Match(%q, %q) = %v", c.pattern, c.s, got)
		}
	}
	// A pattern of stars against a long address costs a bounded number
	// of steps, not an exponential one: this returns at once.
	if Match(strings.Repeat("*a", 100)+"b", strings.Repeat("a", 254)) {
		t.Error("matched without the b")
	}
}

func TestActs(t *testing.T) {
	t.Parallel()
	times := Rule{Times: 2}
	every := Rule{Every: 3}
	for n, want := range map[uint64][2]bool{1: {true, false}, 2: {true, false}, 3: {false, true}, 6: {false, true}, 7: {false, false}} {
		if times.Acts(n) != want[0] || every.Acts(n) != want[1] {
			t.Errorf("attempt %d: times %v every %v; want %v", n, times.Acts(n), every.Acts(n), want)
		}
	}
	// A fraction is the same attempts for the same seed, and about the
	// fraction of them.
	a, b, c := Rule{Fraction: 0.3, Seed: 7}, Rule{Fraction: 0.3, Seed: 7}, Rule{Fraction: 0.3, Seed: 8}
	acted, differ := 0, 0
	for n := uint64(1); n <= 10000; n++ {
		if a.Acts(n) != b.Acts(n) {
			t.Fatalf("attempt %d: the same seed decided differently", n)
		}
		if a.Acts(n) {
			acted++
		}
		if a.Acts(n) != c.Acts(n) {
			differ++
		}
	}
	if acted < 2800 || acted > 3200 || differ == 0 {
		t.Errorf("a fraction of 0.3 acted at %d of 10000 (another seed differed at %d)", acted, differ)
	}
}

func TestRequestRule(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r, err := Request{Command: "rcpt", Reply: "451 4.7.1 try again later", Times: 2}.Rule("id", now, time.Time{}, InboxScope)
	if err != nil || r.Command != RCPT || !r.ExpiresAt.Equal(now.Add(DefaultExpiry)) {
		t.Fatalf("%+v %v", r, err)
	}
	inboxEnd := now.Add(10 * time.Minute)
	if r, _ := (Request{Command: "RCPT", Close: true}).Rule("id", now, inboxEnd, InboxScope); !r.ExpiresAt.Equal(inboxEnd) {
		t.Errorf("a rule outlives its inbox: %v", r.ExpiresAt)
	}
	reply, err := ParseReply("421 4.3.2 paused")
	if err != nil || reply.Code != 421 || reply.Enhanced != [3]int{4, 3, 2} || reply.Text != "paused" {
		t.Errorf("%+v %v", reply, err)
	}
	if reply, err := ParseReply("554 no thanks"); err != nil || reply.Enhanced != [3]int{} || reply.Text != "no thanks" {
		t.Errorf("%+v %v", reply, err)
	}
	for _, bad := range []string{"", "250 ok", "4511 x", "abc", "451 5.1.1 wrong class", "451 " + strings.Repeat("x", 201), "451 a\r\nb"} {
		if _, err := ParseReply(bad); err == nil {
			t.Errorf("%q was read as a reply", bad)
		}
	}
}
