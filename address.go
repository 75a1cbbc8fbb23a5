package tempmail

import "strings"

// NormalizeAddress lower-cases an e-mail address and checks that it has the
// shape local@domain within RFC 5321 length limits. Addresses are compared and
// stored in this form everywhere (docs/API.md, "Conventions").
func NormalizeAddress(addr string) (string, error) {
	addr = strings.ToLower(strings.TrimSpace(addr))
	at := strings.LastIndexByte(addr, '@')
	switch {
	case addr == "":
		return "", Errorf(Invalid, "address is empty")
	case at <= 0 || at == len(addr)-1:
		return "", Errorf(Invalid, "address %q must have the form name@domain", addr)
	case at > 64:
		return "", Errorf(Invalid, "address %q has a local part longer than 64 bytes", addr)
	case len(addr)-at-1 > 253:
		return "", Errorf(Invalid, "address %q has a domain longer than 253 bytes", addr)
	case strings.ContainsAny(addr, " \t\r\n<>\x00"):
		return "", Errorf(Invalid, "address %q contains characters not allowed in an address", addr)
	}
	return addr, nil
}

// SplitAddress returns the local part and the domain of a normalised address.
func SplitAddress(addr string) (local, domain string) {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return addr, ""
	}
	return addr[:at], addr[at+1:]
}
