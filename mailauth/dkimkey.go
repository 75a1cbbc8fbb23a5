package mailauth

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"net"
	"strings"
	"sync"
	"time"
)

// Bounds on a DKIM key, checked before the library sees it: the library
// and crypto/rsa accept a key of any size, and a sender who publishes a
// 380,000-bit modulus with a 31-bit exponent makes each signature cost
// seconds of CPU. RFC 8301 section 3.2 asks verifiers to handle keys of
// 1024 to 4096 bits; real keys have the exponent 65537 (3 is allowed by
// RFC 3447 and kept, as OpenDKIM and dkimpy keep it).
const (
	MaxKeyBits = 4096
	// MaxKeyRecordBytes bounds a key's TXT record: a 4096-bit RSA key
	// with its tags is about 800 bytes.
	MaxKeyRecordBytes = 4096
	// maxRefusedKeys bounds the key records a Verifier remembers it
	// refused.
	maxRefusedKeys = 1024
)

// Reasons for a key this package refuses.
const (
	reasonRecordTooLong = "key record longer than 4096 bytes"
	reasonKeyTooLarge   = "key larger than 4096 bits"
	reasonExponent      = "key exponent neither 3 nor 65537"
)

// keyAnswer is what the question for one key's record got, as the
// library is to be given it (the records, or the resolver's error), or
// why this package refuses the key.
type keyAnswer struct {
	txts    []string
	err     error
	refused string
}

// lookupKeys asks for the key of every signature still to check: one
// question per name, however many signatures name it, the names asked
// at once. It concludes the signatures whose key cannot be used, and
// returns the answers by name, for the library's questions.
func (v *Verifier) lookupKeys(ctx context.Context, sigs []signature) map[string]keyAnswer {
	var names []string
	keys := map[string]keyAnswer{}
	for _, s := range sigs {
		if _, asked := keys[s.key]; s.result == "" && !asked {
			names = append(names, s.key)
			keys[s.key] = keyAnswer{}
		}
	}
	answers := make([]keyAnswer, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		answers[i] = keyAnswer{err: errNoAnswer}
		wg.Go(func() {
			defer recoverAs(func() {}) // errNoAnswer: the signature is permerror
			answers[i] = v.lookupKey(ctx, name)
		})
	}
	wg.Wait()
	for i, name := range names {
		keys[name] = answers[i]
	}
	for i, s := range sigs {
		if s.result == "" {
			sigs[i].result, sigs[i].reason = keyVerdict(ctx, keys[s.key])
		}
	}
	return keys
}

// errNoAnswer is a key question's answer when it could not be had, and
// the library's answer for a name not asked (which its parsing of a
// signature, the same as readSignatures', does not give).
var errNoAnswer = errors.New("no answer for the key")

// lookupKey asks for the key record name and vets it. A record it refuses
// is remembered as refused for as long as its answer holds (its TTL), so
// that the next messages that name it cost no question and no vetting,
// also when the record is too large for the resolver to keep.
func (v *Verifier) lookupKey(ctx context.Context, name string) keyAnswer {
	refused := v.refusedKeys()
	if why, ok := refused.get(name, time.Now()); ok {
		return keyAnswer{refused: why}
	}
	txts, until, err := v.DNS.lookupTXTUntil(ctx, name)
	if err == nil && len(txts) == 1 {
		if why := vetKey(txts[0]); why != "" {
			refused.put(name, why, until)
			return keyAnswer{refused: why}
		}
	}
	return keyAnswer{txts: txts, err: err}
}

// refusedKeys is the Verifier's memory of the key records it refused, by
// name, made at its first use.
func (v *Verifier) refusedKeys() *expiringCache[string] {
	v.refusedOnce.Do(func() { v.refused = newExpiringCache[string](maxRefusedKeys) }) // the zero Verifier is ready to use
	return v.refused
}

// keyVerdict is the result of a signature whose key got k, or "" when the
// library is to check it: as the library would conclude without reading
// further (RFC 6376 section 6.1.2), and permerror with the reason for a
// key refused here.
func keyVerdict(ctx context.Context, k keyAnswer) (result, reason string) {
	var dnsErr *net.DNSError
	switch {
	case k.refused != "":
		return PermError, k.refused
	case errors.As(k.err, &dnsErr) && (dnsErr.IsTimeout || dnsErr.IsTemporary):
		if ctx.Err() != nil {
			return TempError, reasonOutOfTime
		}
		return TempError, ""
	case k.err != nil, len(k.txts) != 1:
		return PermError, "" // no such key, or several records for it
	}
	return "", ""
}

// vetKey says why a DKIM key record must not be used (a reason), or ""
// when the library may have it. It parses the key as the library does,
// which costs time in proportion to the record, bounded first, and does
// no arithmetic: the key's size and exponent are read, not used. A record
// it cannot read is left to the library, which refuses it.
func vetKey(record string) string {
	if len(record) > MaxKeyRecordBytes {
		return reasonRecordTooLong
	}
	tags := map[string]string{}
	for _, t := range strings.Split(record, ";") {
		k, val, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		tags[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	if k := tags["k"]; k != "" && k != "rsa" {
		return "" // Ed25519 has one size; others are refused by the library
	}
	der, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(tags["p"], " ", ""))
	if err != nil || len(der) == 0 {
		return ""
	}
	var pub *rsa.PublicKey
	if k, err := x509.ParsePKIXPublicKey(der); err == nil {
		pub, _ = k.(*rsa.PublicKey)
	} else if k, err := x509.ParsePKCS1PublicKey(der); err == nil {
		pub = k
	}
	switch {
	case pub == nil:
		return ""
	case pub.N.BitLen() > MaxKeyBits:
		return reasonKeyTooLarge
	case pub.E != 3 && pub.E != 65537:
		return reasonExponent
	}
	return ""
}
