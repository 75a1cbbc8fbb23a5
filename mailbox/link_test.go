package mailbox

import "testing"

// The ASCII form of a link's URL: an internationalized host as a browser
// looks it up (punycode), beside the Unicode form the URL keeps.
func TestASCII(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://example.com/a?b#c":                      "https://example.com/a?b#c",
		"HTTPS://Example.COM:8443/":                      "HTTPS://Example.COM:8443/",
		"https://ex\u00e4mple.com/caf\u00e9":             "https://xn--exmple-cua.com/caf\u00e9",
		"https://\u0430pple.com/login":                   "https://xn--pple-43d.com/login", // a Cyrillic а
		"https://user:pw@b\u00fccher.de:8443/x?y=\u00e4": "https://user:pw@xn--bcher-kva.de:8443/x?y=\u00e4",
		"https://b\u00fccher\u3002de/":                   "https://xn--bcher-kva.de/",
		"https://exa%E2%80%8Bmple.com/":                  "https://example.com/", // the zero-width space is ignored: a browser goes to example.com
		"https://%E2%80%AEelgoog.com/":                   "",                     // a bidi control: no valid host
		"https://[2001:db8::1]:443/":                     "https://[2001:db8::1]:443/",
		"https://a_b.ex\u00e4mple/":                      "https://a_b.xn--exmple-cua/",
	} {
		if got := ASCII(in); got != want {
			t.Errorf("ASCII(%q) = %q, want %q", in, got, want)
		}
	}
}
