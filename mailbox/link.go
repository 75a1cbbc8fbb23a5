package mailbox

import (
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// How a link is shown beside its URL: the host a browser looks up.

// ASCII returns u with its host as a browser looks it up: an
// internationalized name (or one percent-encoded) as its A-labels
// (punycode, xn--), lower case; u itself when its host is ASCII already.
// Beside the Unicode form, it tells a look-alike host (xn--pple-43d.com
// for аpple.com with a Cyrillic а) from the real one. It is "" when the
// host is no valid domain name, where no browser goes.
func ASCII(u string) string {
	rest, ok := strings.CutPrefix(u, schemeOf(u)+"://")
	if !ok {
		return u
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	hostStart := strings.LastIndexByte(authority, '@') + 1
	host := authority[hostStart:]
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i] // the port
	}
	if isASCIIHost(host) {
		return u
	}
	name, err := url.PathUnescape(host)
	if err == nil {
		name, err = browserIDNA.ToASCII(name)
	}
	if err != nil || name == "" {
		return ""
	}
	return u[:len(u)-len(rest)] + authority[:hostStart] + name + rest[hostStart+len(host):]
}

// browserIDNA converts a host as the WHATWG URL standard's "domain to
// ASCII" does: UTS 46 mapping, nontransitional, bidi and joiner rules
// checked, and (unlike DNS lookups' strict profile) underscores and
// hyphens where DNS names would not have them allowed.
var browserIDNA = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false),
	idna.CheckHyphens(false), idna.BidiRule(), idna.CheckJoiners(true))

// schemeOf is u's scheme as written (http or https, in any case).
func schemeOf(u string) string {
	if i := strings.IndexByte(u, ':'); i >= 0 {
		return u[:i]
	}
	return ""
}

// isASCIIHost: nothing to convert (no byte outside ASCII, nothing
// percent-encoded).
func isASCIIHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 || h[i] == '%' {
			return false
		}
	}
	return true
}
