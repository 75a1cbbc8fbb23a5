package tempmail

import (
	"regexp"
	"slices"
	"strings"
)

// Names says which local parts an inbox may have: a name of 1 to 64
// characters of a-z, 0-9, '.', '_' and '-', starting and ending with a
// letter or digit, without "..", and not reserved. The same rule holds in
// every family, on the page, and for the inboxes a catch-all domain makes.
type Names struct {
	reserved map[string]bool
}

// RoleNames are never handed out: mail to them is trusted to reach the
// domain's operator. A certificate authority validating a domain by e-mail
// writes to the first five (CA/Browser Forum Baseline Requirements
// 3.2.2.4.4), and RFC 2142 names the rest; whoever held one could have a
// certificate issued for the operator's domain.
var RoleNames = []string{"admin", "administrator", "webmaster", "hostmaster", "postmaster",
	"abuse", "noc", "security", "usenet", "news", "www", "uucp", "ftp", "root", "mailer-daemon"}

// NewNames returns the rule with RoleNames and extra reserved.
func NewNames(extra []string) *Names {
	n := &Names{reserved: map[string]bool{}}
	for _, name := range slices.Concat(RoleNames, extra) {
		n.reserved[strings.ToLower(name)] = true
	}
	return n
}

var nameRe = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$`)

// Check says why name (lower-cased already) cannot name an inbox, or nil.
// The reason is written to follow "Invalid name: ".
func (n *Names) Check(name string) error {
	switch {
	case name == "":
		return Errorf(Invalid, "must not be empty")
	case len(name) > 64:
		return Errorf(Invalid, "must be at most 64 characters")
	case strings.Contains(name, ".."):
		return Errorf(Invalid, "must not contain '..'")
	case strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != "":
		return Errorf(Invalid, "may contain only a-z, 0-9, '.', '_' and '-'")
	case !nameRe.MatchString(name):
		return Errorf(Invalid, "must start and end with a letter or digit")
	case n.Reserved(name):
		return Errorf(Invalid, "'%s' is reserved", name)
	}
	return nil
}

// Reserved reports whether name is reserved.
func (n *Names) Reserved(name string) bool { return n.reserved[name] }
