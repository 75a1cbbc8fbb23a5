package mailosaur

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"time"

	"tempmail"
	"tempmail/api/family"
	"tempmail/wire"
)

// Mailosaur's virtual security devices (mailosaur.go): devices.otp with a
// shared secret gives the code an authenticator app shows for it now,
// the TOTP of RFC 6238 as such apps compute it (HMAC-SHA1, six digits, a
// new code every 30 seconds), so that a test of a sign-in with a second
// factor can type it. The service keeps no devices: devices.create, list,
// del and otp(deviceId) are refused (refused.go), naming the call and
// what to do instead.

const (
	totpStep   = 30 * time.Second
	totpDigits = 6
	// maxSecretLen bounds a shared secret's base32 text: 128 bytes of
	// secret, four times what authenticator apps are given.
	maxSecretLen = 208
)

// mailosaurOTPRequest is the body of POST api/devices/otp.
type mailosaurOTPRequest struct {
	SharedSecret string `json:"sharedSecret"`
}

// mailosaurOTP is the SDK's OtpResult: the code, and when it stops being
// the current one.
type mailosaurOTP struct {
	Code    string    `json:"code"`
	Expires wire.Time `json:"expires"`
}

// sharedSecret decodes a base32 secret as authenticator apps take it:
// letters of either case, spaces and dashes between groups, padding
// optional.
func sharedSecret(text string) ([]byte, error) {
	bad := tempmail.Errorf(tempmail.Invalid, "sharedSecret: must be the base32 text of the secret (A-Z, 2-7), at most %d characters", maxSecretLen)
	if len(text) > maxSecretLen*2 {
		return nil, bad
	}
	clean := strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(text))
	clean = strings.TrimRight(clean, "=")
	if clean == "" || len(clean) > maxSecretLen {
		return nil, bad
	}
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(clean)
	if err != nil || len(key) == 0 {
		return nil, bad
	}
	return key, nil
}

// totp is the code of key for the step that holds at, and when that step
// ends (RFC 6238 with RFC 4226's dynamic truncation).
func totp(key []byte, at time.Time) (string, time.Time) {
	step := at.Unix() / int64(totpStep/time.Second)
	var counter [8]byte
	binary.BigEndian.PutUint64(counter[:], uint64(step))
	mac := hmac.New(sha1.New, key)
	mac.Write(counter[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	n := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	return fmt.Sprintf("%0*d", totpDigits, n%1_000_000), time.Unix((step+1)*int64(totpStep/time.Second), 0).UTC()
}

// mailosaurDeviceOTP answers POST api/devices/otp. It reads no view and
// writes nothing: any key of the tenant may ask, a read key included.
func (s *API) mailosaurDeviceOTP(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var body mailosaurOTPRequest
	if err == nil {
		err = family.DecodeBody(r, &body)
	}
	var key []byte
	if err == nil {
		key, err = sharedSecret(body.SharedSecret)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	code, expires := totp(key, time.Now())
	family.WriteJSON(w, http.StatusOK, mailosaurOTP{Code: code, Expires: wire.At(expires)})
}
