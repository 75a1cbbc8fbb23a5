package mailauth

import (
	"bytes"
	"strings"
)

// What a DKIM-Signature field tells by itself. checkDKIM judges each of
// the first MaxSignatures signatures here, before any DNS question: one
// that cannot pass with any key this package accepts, or that would cost
// more to check than any real signature, is concluded here, and neither
// its key is asked for nor the library given it. A sender chooses every
// byte of these fields; the library reads them all and hashes the body
// for each signature before it finds out.

// Bounds on a signature's tags, in bytes decoded from base64.
const (
	// maxSignatureBytes is a 4096-bit key's signature, the largest key
	// accepted (MaxKeyBits): a longer b= (over 684 base64 characters)
	// cannot verify, and a 380,000-bit key's is 47,500 bytes.
	maxSignatureBytes = MaxKeyBits / 8
	// minSignatureBytes is an Ed25519 signature, the shortest any
	// accepted key makes (the library refuses RSA keys under 1024 bits,
	// whose signatures are 128 bytes).
	minSignatureBytes = 64
	// sha256Bytes is a SHA-256 digest, the one body hash the library
	// computes (it refuses rsa-sha1): another bh= cannot match.
	sha256Bytes = 32
	// maxSignedNames bounds h=: the library looks for each name through
	// the header; real signers name 5 to 40 fields.
	maxSignedNames = 64
)

// Reasons for a signature judged on its field alone.
const (
	reasonFieldLength   = "signature field longer than 16 KiB"
	reasonName          = "d= or s= not a domain name"
	reasonSignatureSize = "b= longer or shorter than any accepted key's signature"
	reasonBodyHash      = "bh= not a SHA-256 hash"
	reasonSignedNames   = "h= names more than 64 fields"
)

// signature is one of a message's DKIM-Signature fields as checkDKIM
// judges it.
type signature struct {
	start, end int               // the field in the message, its line end included
	tags       map[string]string // white space removed from values
	key        string            // the name of its key's record: s._domainkey.d, fully qualified
	signs      []string          // the field names h= gives, in lower case
	// signsSignatures: h= names DKIM-Signature (signatures of other
	// signers can be signed).
	signsSignatures bool
	// result and reason are what it was concluded to be; result is empty
	// while it is left to the library.
	result, reason string
}

// readSignatures returns the first MaxSignatures DKIM-Signature fields of
// msg, each judged on its own: a result is set for those that are not to
// be checked further.
func readSignatures(msg []byte) []signature {
	var sigs []signature
	eachField(msg, func(_ []byte, start, end int) bool {
		if isSignature(msg[start:end]) {
			sigs = append(sigs, judgeField(msg[start:end], start, end))
		}
		return len(sigs) < MaxSignatures
	})
	return sigs
}

// isSignature says whether field is a DKIM-Signature as the library
// tells one: by the text before the field's first colon, white space
// around it trimmed, in any case.
func isSignature(field []byte) bool {
	return bytes.EqualFold(fieldName(field), []byte("DKIM-Signature"))
}

// fieldName is a field's name as the library reads it: the text before
// its first colon (the whole field without one), white space trimmed.
func fieldName(field []byte) []byte {
	name, _, _ := bytes.Cut(field, []byte(":"))
	return bytes.TrimSpace(name)
}

// judgeField reads a signature's tags and judges them. Only the first
// maxFieldValue bytes are read: a longer field is refused, and what is
// read of it tells the reason and its domain and selector as shown.
func judgeField(field []byte, start, end int) signature {
	_, value, _ := bytes.Cut(field[:min(len(field), maxFieldValue)], []byte(":"))
	s := signature{start: start, end: end, tags: dkimTags(string(value))}
	var named bool
	s.key, named = keyName(s.tags["s"], s.tags["d"])
	for _, n := range strings.Split(s.tags["h"], ":") {
		n = asciiLower(n)
		s.signs = append(s.signs, n)
		s.signsSignatures = s.signsSignatures || n == "dkim-signature"
	}
	_, length := s.tags["l"]
	switch b := decodedLen(s.tags["b"]); {
	case b > maxSignatureBytes: // seen also in a field cut short
		s.result, s.reason = PermError, reasonSignatureSize
	case len(field) > maxFieldValue:
		s.result, s.reason = PermError, reasonFieldLength
	case !named:
		s.result, s.reason = PermError, reasonName
	case b < minSignatureBytes:
		s.result, s.reason = PermError, reasonSignatureSize
	case decodedLen(s.tags["bh"]) != sha256Bytes:
		s.result, s.reason = PermError, reasonBodyHash
	case len(s.signs) > maxSignedNames:
		s.result, s.reason = PermError, reasonSignedNames
	case length:
		// The library refuses l= without hashing anything, and says
		// fail; RFC 8601 section 2.7.1 has a word for a signature the
		// verifier will not accept: policy.
		s.result, s.reason = Policy, reasonBodyLength
	}
	return s
}

// decodedLen is how many bytes the base64 text b64 (white space removed)
// stands for, without decoding it: its length may be all that is wrong.
func decodedLen(b64 string) int {
	n := len(b64) / 4 * 3
	if rest := len(b64) % 4; rest > 0 {
		return n + rest*3/4 // not base64: the library refuses it
	}
	return n - (len(b64) - len(strings.TrimRight(b64, "=")))
}

// keyName is the fully qualified name of the record of the key of
// selector in domain (RFC 6376 section 3.6.2.1), or false when either
// is not a domain name, or the name would be longer than DNS allows.
func keyName(selector, domain string) (string, bool) {
	if _, ok := lookupName(selector); !ok {
		return "", false
	}
	if _, ok := lookupName(domain); !ok {
		return "", false
	}
	return lookupName(selector + "._domainkey." + domain)
}

// asciiLower is s with its ASCII letters in lower case: header field
// names compare so (RFC 5322 section 1.2.2).
func asciiLower(s string) string {
	return string(appendASCIILower(nil, []byte(s)))
}

// appendASCIILower appends name to b with its ASCII letters in lower
// case.
func appendASCIILower(b, name []byte) []byte {
	for _, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
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
