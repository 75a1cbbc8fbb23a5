package mailosaur

import (
	"encoding/base32"
	"testing"
	"time"
)

// TestTOTPMatchesRFC6238: the codes of RFC 6238's test vectors for
// HMAC-SHA1 (Appendix B), whose eight digits end in the six an
// authenticator app shows, and when each stops being current.
func TestTOTPMatchesRFC6238(t *testing.T) {
	t.Parallel()
	secret := base32.StdEncoding.EncodeToString([]byte("12345678901234567890"))
	key, err := sharedSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		unix int64
		code string
	}{
		{59, "287082"}, {1111111109, "081804"}, {1111111111, "050471"},
		{1234567890, "005924"}, {2000000000, "279037"}, {20000000000, "353130"},
	} {
		code, expires := totp(key, time.Unix(c.unix, 0))
		if code != c.code || expires.Unix() != (c.unix/30+1)*30 {
			t.Errorf("at %d: %s until %d, want %s until %d", c.unix, code, expires.Unix(), c.code, (c.unix/30+1)*30)
		}
	}
}

// TestSharedSecretsAreReadAsAppsReadThem: any case, spaces, dashes and
// padding; nothing else, and nothing too long.
func TestSharedSecretsAreReadAsAppsReadThem(t *testing.T) {
	t.Parallel()
	want, _ := sharedSecret("JBSWY3DPEHPK3PXP")
	for _, s := range []string{"jbswy3dpehpk3pxp", "JBSW Y3DP EHPK 3PXP", "JBSW-Y3DP-EHPK-3PXP", "JBSWY3DPEHPK3PXP======"} {
		if got, err := sharedSecret(s); err != nil || string(got) != string(want) {
			t.Errorf("%q: %x %v", s, got, err)
		}
	}
	for _, s := range []string{"", "   ", "JBSWY3DPEHPK3PX1", "JBSWY3DP\x00", string(make([]byte, 500)), "ÄÖÜ"} {
		if _, err := sharedSecret(s); err == nil {
			t.Errorf("%q was taken", s)
		}
	}
	long := make([]byte, maxSecretLen+8)
	for i := range long {
		long[i] = 'A'
	}
	if _, err := sharedSecret(string(long)); err == nil {
		t.Errorf("a secret of %d characters was taken", len(long))
	}
}
