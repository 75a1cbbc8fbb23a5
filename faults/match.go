package faults

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
)

// When a rule acts: which attempts it matches, and which of those it acts
// at.

// Acts says whether the rule acts at its n-th matching attempt (from 1).
func (r *Rule) Acts(n uint64) bool {
	switch {
	case r.Times > 0:
		return n <= uint64(r.Times)
	case r.Every > 0:
		return n%uint64(r.Every) == 0
	case r.Fraction > 0:
		var b [16]byte
		for i := range 8 {
			b[i], b[8+i] = byte(r.Seed>>(8*i)), byte(n>>(8*i))
		}
		return float64(xxhash.Sum64(b[:])>>11)/float64(1<<53) < r.Fraction
	}
	return true
}

// Spent says whether the rule will never act again after n attempts.
func (r *Rule) Spent(n uint64) bool { return r.Times > 0 && n >= uint64(r.Times) }

// Counts says whether the rule needs its attempts counted when it does not
// act: every Nth and a fraction are decided by the attempt's number.
func (r *Rule) Counts() bool { return r.Every > 0 || r.Fraction > 0 }

// Ordered sorts rules as they are asked: the highest priority first, then
// the oldest.
func Ordered[R any](rules []R, rule func(*R) *Rule) []R {
	out := slices.Clone(rules)
	slices.SortStableFunc(out, func(a, b R) int { return cmp.Compare(rule(&b).Priority, rule(&a).Priority) })
	return out
}

// Attempt is what a rule matches on.
type Attempt struct {
	Command string
	From    string // the envelope sender, from MAIL on
	To      string // the recipient, from RCPT on
	Client  netip.Addr
}

// Matches says whether the rule acts on an attempt at time now.
func (r *Rule) Matches(a Attempt, now time.Time) bool {
	switch {
	case r.Command != a.Command || !now.Before(r.ExpiresAt):
		return false
	case r.From != "" && !Match(r.From, strings.ToLower(a.From)):
		return false
	case r.To != "" && !Match(r.To, strings.ToLower(a.To)):
		return false
	}
	if r.Client != "" {
		p, err := parsePrefix(r.Client)
		return err == nil && p.Contains(a.Client.Unmap())
	}
	return true
}

// Match says whether s matches pattern, where * stands for any run of
// characters; at most two runs of s are tried per star, so a pattern costs
// at most len(pattern)*len(s) steps.
func Match(pattern, s string) bool {
	// Iterative glob with one backtrack point: linear-ish, never
	// exponential.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
