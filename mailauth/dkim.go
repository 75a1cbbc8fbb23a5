package mailauth

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/emersion/go-msgauth/dkim"

	"tempmail/mail"
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
)

// Reasons a DKIM result gives (DKIM.Reason), each a fixed phrase that
// may stand in the Authentication-Results field as its reason.
const (
	reasonRecordTooLong = "key record longer than 4096 bytes"
	reasonKeyTooLarge   = "key larger than 4096 bits"
	reasonExponent      = "key exponent neither 3 nor 65537"
	reasonBodyLength    = "l= leaves part of the body unsigned"
	reasonOutOfTime     = "checks ran out of time"
)

// errKeyRefused is what the key lookup answers the library for a key
// this package will not use; the library makes it a permanent failure of
// the signature, before it parses the key.
type errKeyRefused string

func (e errKeyRefused) Error() string { return string(e) }

// checkDKIM checks the message's first MaxSignatures DKIM signatures
// within ctx: when ctx ends, the library reads no more of the message,
// and what it had not concluded is temperror. The library says whether
// each verified; the header fields themselves say which domain and
// selector each names, which the library does not return.
func (v *Verifier) checkDKIM(ctx context.Context, msg []byte) (out []mail.DKIM) {
	fields := fieldValues(msg, "DKIM-Signature", MaxSignatures)
	out = make([]mail.DKIM, len(fields))
	keys := make([]string, len(fields)) // where each signature's key is looked up
	lengths := make([]bool, len(fields))
	for i, f := range fields {
		tags := dkimTags(f)
		out[i] = mail.DKIM{Result: PermError, Domain: cleanDomain(tags["d"]), Selector: cleanDomain(tags["s"])}
		keys[i] = tags["s"] + "._domainkey." + tags["d"]
		_, lengths[i] = tags["l"]
	}
	if len(out) == 0 {
		return out
	}
	defer recoverAs(func() {}) // each signature stays permerror
	var refusedMu sync.Mutex
	refused := map[string]string{} // key names to why their key is not used
	lookup := func(name string) ([]string, error) {
		txts, err := v.DNS.LookupTXT(ctx, name)
		if err != nil || len(txts) != 1 {
			return txts, err // the library refuses several records itself
		}
		if why := vetKey(txts[0]); why != "" {
			refusedMu.Lock()
			refused[name] = why
			refusedMu.Unlock()
			return nil, errKeyRefused(why)
		}
		return txts, nil
	}
	body := &budgetReader{ctx: ctx, r: bytes.NewReader(msg)}
	verifs, err := dkim.VerifyWithOptions(body, &dkim.VerifyOptions{MaxVerifications: MaxSignatures, LookupTXT: lookup})
	if err != nil && !errors.Is(err, dkim.ErrTooManySignatures) {
		// The header block cannot be read: every signature is permerror,
		// or temperror when it was not read for want of time.
		if body.cut.Load() {
			for i := range out {
				out[i].Result, out[i].Reason = TempError, reasonOutOfTime
			}
		}
		return out
	}
	for i, vf := range verifs {
		if i >= len(out) {
			break
		}
		out[i].Result = dkimResult(vf.Err)
		switch {
		case refused[keys[i]] != "" && out[i].Result == PermError:
			out[i].Reason = refused[keys[i]]
		case lengths[i] && out[i].Result == Fail:
			// The library refuses l= before it hashes anything, and says
			// fail; RFC 8601 section 2.7.1 has a word for a signature the
			// verifier will not accept: policy.
			out[i].Result, out[i].Reason = Policy, reasonBodyLength
		case body.cut.Load() && (out[i].Result == Fail || out[i].Result == TempError):
			// What was hashed was not the whole body.
			out[i].Result, out[i].Reason = TempError, reasonOutOfTime
		}
	}
	return out
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

// budgetReader reads the message for the DKIM library until ctx ends;
// then it ends the message early (io.EOF, so that the library finishes
// what it began and returns) and says so in cut.
type budgetReader struct {
	ctx context.Context
	r   io.Reader
	cut atomic.Bool
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.ctx.Err() != nil {
		b.cut.Store(true)
		return 0, io.EOF
	}
	return b.r.Read(p)
}

func dkimResult(err error) string {
	switch {
	case err == nil:
		return Pass
	case dkim.IsTempFail(err):
		return TempError
	case dkim.IsPermFail(err):
		return PermError
	}
	return Fail
}

// dkimTags reads a DKIM-Signature's tag=value list (RFC 6376 section
// 3.2), white space removed from values.
func dkimTags(v string) map[string]string {
	tags := map[string]string{}
	for _, t := range strings.Split(v, ";") {
		k, val, ok := strings.Cut(t, "=")
		if ok {
			tags[strings.TrimSpace(k)] = strings.Join(strings.Fields(val), "")
		}
	}
	return tags
}
