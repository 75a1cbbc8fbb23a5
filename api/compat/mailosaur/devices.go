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

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/projections"
	"tempmail/wire"
)

// Mailosaur's virtual security devices (mailosaur.go): devices.otp with a
// shared secret gives the code an authenticator app shows for it now,
// the TOTP of RFC 6238 as such apps compute it (HMAC-SHA1, six digits, a
// new code every 30 seconds), so that a test of a sign-in with a second
// factor can type it. A tenant may keep its secrets too, as devices:
// devices.create stores a name and a secret
// (command.Commands.CreateDevice: at most projections.MaxTenantDevices a
// tenant, claimed as each is made), devices.list lists them,
// devices.otp(deviceId) gives a stored device's code and devices.del
// forgets it, its secret with it. A device's id is a UUID: the SDK sends
// otp(query) to the device's route only when query holds a '-'. Another
// tenant's device is not found, as one that does not exist.

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

// mailosaurDevice is a device as the SDK's Device model reads it: never
// its secret.
type mailosaurDevice struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type mailosaurDeviceList struct {
	Items []mailosaurDevice `json:"items"`
}

// mailosaurDeviceBody is what devices.create sends.
type mailosaurDeviceBody struct {
	Name         *string `json:"name"`
	SharedSecret string  `json:"sharedSecret"`
}

var errDeviceNotFound = tempmail.Errorf(tempmail.NotFound, "device not found")

// mailosaurDevices answers GET api/devices: the tenant's devices, in the
// order they were made, from one entry.
func (s *API) mailosaurDevices(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var list []projections.DeviceItem
	if err == nil {
		list, err = s.Views.TenantDevices(r.Context(), family.CredentialFrom(r).Owner(), false)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	out := mailosaurDeviceList{Items: make([]mailosaurDevice, 0, len(list))}
	for _, d := range list {
		out.Items = append(out.Items, mailosaurDevice{ID: d.ID, Name: d.Name})
	}
	family.WriteJSON(w, http.StatusOK, out)
}

// mailosaurCreateDevice answers POST api/devices {name, sharedSecret}
// with the new device: its name as a server's is (checkServerName), its
// secret as devices.otp takes it.
func (s *API) mailosaurCreateDevice(w http.ResponseWriter, r *http.Request) {
	var body mailosaurDeviceBody
	err := mailosaurMay(r, true)
	if err == nil {
		err = family.DecodeBody(r, &body)
	}
	var name string
	if err == nil {
		name, err = checkServerName(body.Name)
	}
	var key []byte
	if err == nil {
		key, err = sharedSecret(body.SharedSecret)
	}
	var d *projections.Device
	if err == nil {
		d, err = s.Commands.CreateDevice(r.Context(), family.CredentialFrom(r).Owner(), command.DeviceSpec{Name: name, Secret: key})
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, mailosaurDevice{ID: d.ID, Name: d.Name})
}

// mailosaurDeviceOf is the key's tenant's device of the route's id: an
// id that is no UUID is not looked up, and another tenant's device is not
// found, as one that does not exist.
func (s *API) mailosaurDeviceOf(r *http.Request) (*projections.Device, error) {
	id := chi.URLParam(r, "id")
	if !family.ValidID(id) {
		return nil, errDeviceNotFound
	}
	d, err := s.Views.Device(r.Context(), strings.ToLower(id))
	if err != nil {
		return nil, family.AsNotFound(err, "device not found")
	}
	if owner := family.CredentialFrom(r).Owner(); owner == "" || d.TenantID != owner {
		return nil, errDeviceNotFound
	}
	return d, nil
}

// mailosaurStoredDeviceOTP answers GET api/devices/{id}/otp: the current
// code of a stored device's secret, as devices.otp(sharedSecret) gives
// it for the secret itself.
func (s *API) mailosaurStoredDeviceOTP(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var d *projections.Device
	if err == nil {
		d, err = s.mailosaurDeviceOf(r)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	code, expires := totp(d.Secret, time.Now())
	family.WriteJSON(w, http.StatusOK, mailosaurOTP{Code: code, Expires: wire.At(expires)})
}

// mailosaurDeleteDevice answers DELETE api/devices/{id}: 204 once the
// views no longer hold the device nor its secret.
func (s *API) mailosaurDeleteDevice(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, true)
	var d *projections.Device
	if err == nil {
		d, err = s.mailosaurDeviceOf(r)
	}
	if err == nil {
		err = s.Commands.DeleteDevice(r.Context(), d)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
