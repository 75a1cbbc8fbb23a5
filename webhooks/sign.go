package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// Signing per the Standard Webhooks specification: the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>", signed with HMAC-SHA256 under
// the secret's key, sent as "v1,<base64 signature>". Secrets are "whsec_"
// and the base64 of the key. The specification's own Go library has had no
// release beyond v0.0.1, so this is the standard library's.

const secretPrefix = "whsec_"

// NewSecret returns a fresh secret: 32 random bytes.
func NewSecret() string {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return secretPrefix + base64.StdEncoding.EncodeToString(key)
}

// sign returns the webhook-signature header's value.
func sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) == 0 {
		return "", errors.New("webhook secret is not whsec_<base64>")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// NewSecret returns a fresh signing secret (the function NewSecret), for
// package command, which records it with a subscription.
func (w *Webhooks) NewSecret() string { return NewSecret() }
