package mailauth

import "testing"

// The grammar of RFC 7208 section 12, on records as they are published
// (the valid ones from real domains and the RFC's examples) and on the
// mistakes it must refuse.
func TestSPFRecordSyntax(t *testing.T) {
	t.Parallel()
	valid := []string{
		"v=spf1", "v=spf1 ", "V=SPF1 -ALL", "v=spf1  ip4:192.0.2.1  -all ",
		"v=spf1 include:_spf.google.com ~all",
		"v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 ip6:::ffff:192.0.2.1 a mx -all",
		"v=spf1 a:mail.example.com/24//64 mx//48 a/26 ?ptr ptr:example.com +all",
		"v=spf1 exists:%{i}.%{l1r-}.%{d}._spf.example.com -all",
		"v=spf1 redirect=_spf.example.com", "v=spf1 -all exp=explain._spf.%{d}",
		"v=spf1 -all exp=%{c}.%{r}.%{t}.example.com", "v=spf1 include:example.com. -all",
		"v=spf1 ip4:0.0.0.0/0 ip6:::/0 unknown-modifier=anything%%here -all",
		"v=spf1 include:%{ir}.%{v}.%{d2}._spf.example.com a:x-1.example.com -all",
	}
	invalid := []string{
		"v=spf2 -all", "v=spf1 bogus:x -all", "v=spf1 ip4:127.0.0.1 bogus:x -all",
		"v=spf1 ip4:300.1.1.1", "v=spf1 ip4:192.0.2.1/33", "v=spf1 ip4:192.0.2.1/024", "v=spf1 ip4:2001:db8::1",
		"v=spf1 ip6:192.0.2.1", "v=spf1 ip6:2001:db8::/129", "v=spf1 include", "v=spf1 include:", "v=spf1 include:localhost",
		"v=spf1 a:1.2.3.4", "v=spf1 a:example.com/33", "v=spf1 mx:example.com//129", "v=spf1 all:x", "v=spf1 -all/24",
		"v=spf1 redirect=a.example.com redirect=b.example.com", "v=spf1 exp=a.example.com exp=b.example.com",
		"v=spf1 exists:%{x}.example.com", "v=spf1 exists:%{c}.example.com", "v=spf1 exists:%.example.com",
		"v=spf1 include:ex\u00e4mple.com", "v=spf1 a:example.-com", "v=spf1 ++all", "v=spf1 ptr/24",
		"v=spf1 exists:%{d", "v=spf1 a:example.com%",
	}
	for _, r := range valid {
		if !spfRecordOK(r) {
			t.Errorf("%q refused, but it is well formed", r)
		}
	}
	for _, r := range invalid {
		if spfRecordOK(r) {
			t.Errorf("%q taken, but it is malformed", r)
		}
	}
}
