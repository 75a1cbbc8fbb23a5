package mailauth

import (
	"context"
	"net/netip"
	"regexp"
	"strings"
	"sync/atomic"
)

// The SPF library evaluates a record's terms in order and stops at the
// first that matches, so a syntax error after it goes unseen. RFC 7208
// section 4.6 wants the whole record read first: a record with a syntax
// error anywhere is permerror ("v=spf1 ip4:192.0.2.1 bogus:x -all"
// included), as pyspf and the RFC's test suite have it. spfDNS sees every
// record the library evaluates (the sender's and those of its includes
// and redirects), and checkSPF makes the result permerror when one of
// them is not well formed.

// spfDNS is the resolver as the SPF library uses it, noting whether a
// record it was given is malformed.
type spfDNS struct {
	*Resolver
	malformed atomic.Bool
}

// LookupTXT answers as the Resolver does, and checks the SPF record among
// the answers, if there is one (the library refuses several itself).
func (d *spfDNS) LookupTXT(ctx context.Context, name string) ([]string, error) {
	txts, err := d.Resolver.LookupTXT(ctx, name)
	var records []string
	for _, t := range txts {
		if l := strings.ToLower(t); strings.HasPrefix(l, "v=spf1 ") || l == "v=spf1" {
			records = append(records, t)
		}
	}
	if len(records) == 1 && !spfRecordOK(records[0]) {
		d.malformed.Store(true)
	}
	return txts, err
}

// spfRecordOK says whether record follows the ABNF of RFC 7208 section
// 12, with its rules on modifiers: redirect and exp at most once each
// (section 6), and the macro letters c, r and t in exp alone (section
// 7.2). Names are compared without regard to case, as ABNF's strings are.
func spfRecordOK(record string) bool {
	terms := strings.Split(record, " ")
	if !strings.EqualFold(terms[0], "v=spf1") {
		return false
	}
	redirects, exps := 0, 0
	for _, t := range terms[1:] {
		if t == "" {
			continue // runs of spaces, and spaces at the end, are allowed
		}
		if name, value, ok := strings.Cut(t, "="); ok && modifierName.MatchString(name) {
			switch strings.ToLower(name) {
			case "redirect":
				redirects++
				ok = domainSpec(value, false)
			case "exp":
				exps++
				ok = domainSpec(value, true)
			default:
				_, ok = macroString(value, false)
			}
			if !ok || redirects > 1 || exps > 1 {
				return false
			}
			continue
		}
		if !directiveOK(strings.TrimLeft(t[:1], "+-?~") + t[1:]) {
			return false
		}
	}
	return true
}

var (
	modifierName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]*$`)
	// dualCIDR is what may end an a or mx mechanism: /n for IPv4, //n for
	// IPv6, or both, without leading zeros.
	dualCIDR = regexp.MustCompile(`(/(0|[1-9][0-9]?))?(//(0|[1-9][0-9]{0,2}))?$`)
	cidrLen  = regexp.MustCompile(`^(0|[1-9][0-9]{0,2})$`)
)

// directiveOK checks a mechanism, its qualifier taken off.
func directiveOK(m string) bool {
	name, rest := m, ""
	if i := strings.IndexAny(m, ":/"); i >= 0 {
		name, rest = m[:i], m[i:]
	}
	switch strings.ToLower(name) {
	case "all":
		return rest == ""
	case "include", "exists":
		return strings.HasPrefix(rest, ":") && domainSpec(rest[1:], false)
	case "ptr":
		return rest == "" || strings.HasPrefix(rest, ":") && domainSpec(rest[1:], false)
	case "a", "mx":
		cidr := dualCIDR.FindStringSubmatch(rest)
		if cidr[2] != "" && atoi(cidr[2]) > 32 || cidr[4] != "" && atoi(cidr[4]) > 128 {
			return false
		}
		rest = rest[:len(rest)-len(cidr[0])]
		return rest == "" || strings.HasPrefix(rest, ":") && domainSpec(rest[1:], false)
	case "ip4", "ip6":
		if !strings.HasPrefix(rest, ":") {
			return false
		}
		network, length, cidr := strings.Cut(rest[1:], "/")
		a, err := netip.ParseAddr(network)
		if err != nil || a.Zone() != "" || (strings.ToLower(name) == "ip4") != a.Is4() {
			return false
		}
		return !cidr || cidrLen.MatchString(length) && atoi(length) <= a.BitLen()
	}
	return false
}

// domainSpec checks a domain-spec: a macro-string that ends in a macro or
// in a top label (RFC 7208 section 12's domain-end).
func domainSpec(s string, exp bool) bool {
	endsInMacro, ok := macroString(s, exp)
	if !ok || s == "" {
		return false
	}
	if endsInMacro {
		return true
	}
	s = strings.TrimSuffix(s, ".")
	dot := strings.LastIndexByte(s, '.')
	return dot >= 0 && topLabel(s[dot+1:])
}

// topLabel: letters, digits and hyphens, not at either end, and not all
// digits.
func topLabel(l string) bool {
	if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	digitsOnly := true
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
			digitsOnly = false
		default:
			return false
		}
	}
	return !digitsOnly
}

// macroString checks a macro-string, and says whether it ends in a macro
// (%{...}, %%, %_ or %-) rather than a literal character.
func macroString(s string, exp bool) (endsInMacro, ok bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' {
			if c < 0x21 || c > 0x7e {
				return false, false
			}
			i++
			endsInMacro = false
			continue
		}
		if i+1 >= len(s) {
			return false, false
		}
		switch s[i+1] {
		case '%', '_', '-':
			i += 2
		case '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 || !macroExpand(s[i+2:i+end], exp) {
				return false, false
			}
			i += end + 1
		default:
			return false, false
		}
		endsInMacro = true
	}
	return endsInMacro, true
}

// macroExpand checks what is between %{ and }: a macro letter, a count
// of labels, r, and delimiters.
func macroExpand(m string, exp bool) bool {
	if m == "" {
		return false
	}
	switch m[0] | 0x20 {
	case 's', 'l', 'o', 'd', 'i', 'p', 'h', 'v':
	case 'c', 'r', 't':
		if !exp {
			return false
		}
	default:
		return false
	}
	m = strings.TrimLeft(m[1:], "0123456789")
	if m != "" && m[0]|0x20 == 'r' {
		m = m[1:]
	}
	return strings.Trim(m, ".-+,/_=") == ""
}

// atoi reads a number the patterns above have checked (at most three
// digits).
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
