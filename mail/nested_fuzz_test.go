package mail

import (
	"strings"
	"testing"

	"github.com/jhillyerd/enmime/v2/mediatype"
)

// FuzzOnlyTheWordMakesMultipart holds what tooNested relies on: enmime
// takes a Content-Type for multipart only when it says "multipart", in
// some case, so a header block without the word needs no boundary count.
func FuzzOnlyTheWordMakesMultipart(f *testing.F) {
	for _, s := range []string{"multipart/mixed; boundary=x", "MULTI\"PART/mixed", "multi part/alternative", "text/plain",
		"multipart /mixed", "mul\ttipart/mixed", "multi=?utf-8?q?part?=/mixed", "; multipart/x", "multi;part/mixed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ctype string) {
		mtype, _, _, err := mediatype.Parse(ctype)
		if err == nil && strings.HasPrefix(mtype, "multipart/") && !mentionsMultipart([]byte(ctype)) {
			t.Errorf("%q is read as %q", ctype, mtype)
		}
	})
}
