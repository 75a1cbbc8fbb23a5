package authtest

import (
	"cmp"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// What a hostile sender publishes and signs, and what a signer that
// go-msgauth has no option for (l=) writes.

// RSAKeyRecord is a DKIM key record (k=rsa) of a random modulus of bits
// bits and the exponent e: no key anyone holds, but one a verifier that
// uses it spends modular arithmetic of that size on. A 380,000-bit
// modulus makes a record of 63 KB, which DNS serves over TCP.
func RSAKeyRecord(t testing.TB, bits, e int) string {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
	if err != nil {
		t.Fatal(err)
	}
	n.SetBit(n, bits-1, 1).SetBit(n, 0, 1) // bits long, and odd
	der, err := x509.MarshalPKIXPublicKey(&rsa.PublicKey{N: n, E: e})
	if err != nil {
		t.Fatal(err)
	}
	return "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der)
}

// ForgedSignatures returns msg with n DKIM-Signature fields of domain and
// selector on top, each with the correct body hash (c=simple/simple) and
// a random signature of bytes bytes: a verifier gets as far as the
// signature itself, with whatever key the selector publishes.
func ForgedSignatures(t testing.TB, msg, domain, selector string, n, bytes int) string {
	t.Helper()
	return Forgery{Domain: domain, Selector: selector, SigBytes: bytes}.On(t, msg, n)
}

// Forgery is a DKIM-Signature a forger writes: the correct body hash of
// its canonicalization, unless BodyHash says otherwise, and a random
// signature, so that a verifier gets as far as it lets itself go.
type Forgery struct {
	Domain, Selector string
	SigBytes         int    // the random b='s length in bytes
	Canon            string // c=; empty: simple/simple
	Headers          string // h=; empty: from:to:subject
	BodyHash         string // bh=; empty: the correct one
	Extra            string // more tags, each with its "; " after it
}

// On returns msg with n such signatures on top, each with its own b=.
func (f Forgery) On(t testing.TB, msg string, n int) string {
	t.Helper()
	_, body, ok := strings.Cut(msg, "\r\n\r\n")
	if !ok {
		t.Fatal("Forgery.On: the message has no body")
	}
	canon := cmp.Or(f.Canon, "simple/simple")
	bh := f.BodyHash
	if bh == "" {
		canonical := simpleBody(body)
		if strings.HasSuffix(canon, "/relaxed") {
			canonical = relaxedBody(body)
		}
		sum := sha256.Sum256([]byte(canonical))
		bh = base64.StdEncoding.EncodeToString(sum[:])
	}
	var b strings.Builder
	for range n {
		sig := make([]byte, f.SigBytes)
		_, _ = rand.Read(sig)
		b.WriteString("DKIM-Signature: v=1; a=rsa-sha256; c=" + canon + "; d=" + f.Domain + "; s=" + f.Selector +
			"; h=" + cmp.Or(f.Headers, "from:to:subject") + "; " + f.Extra + "bh=" + bh +
			"; b=" + base64.StdEncoding.EncodeToString(sig) + "\r\n")
	}
	return b.String() + msg
}

// SignLength returns msg signed by the key as Sign does, with l= set to
// the length of the whole body (simple body canonicalization): a
// signature that is intact and covers the body, and that a verifier may
// still refuse for its l=. With length false it writes no l=, so that a
// test can show the signer is right.
func (k *Key) SignLength(t testing.TB, msg string, length bool) string {
	t.Helper()
	head, body, ok := strings.Cut(msg, "\r\n\r\n")
	if !ok {
		t.Fatal("SignLength: the message has no body")
	}
	canon := simpleBody(body)
	bh := sha256.Sum256([]byte(canon))
	algo := "rsa-sha256"
	if _, ok := k.signer.(ed25519.PrivateKey); ok {
		algo = "ed25519-sha256"
	}
	value := "v=1; a=" + algo + "; c=relaxed/simple; d=" + k.Domain + "; s=" + k.Selector + "; h=from:to:subject; "
	if length {
		value += "l=" + strconv.Itoa(len(canon)) + "; "
	}
	value += "bh=" + base64.StdEncoding.EncodeToString(bh[:]) + "; b="
	h := sha256.New()
	for _, name := range []string{"from", "to", "subject"} {
		h.Write([]byte(relaxedField(fieldOf(t, head, name))))
	}
	h.Write([]byte(strings.TrimSuffix(relaxedField("DKIM-Signature: "+value), "\r\n")))
	hashed := h.Sum(nil)
	var sig []byte
	var err error
	if ed, ok := k.signer.(ed25519.PrivateKey); ok {
		sig = ed25519.Sign(ed, hashed)
	} else {
		sig, err = k.signer.Sign(rand.Reader, hashed, crypto.SHA256)
	}
	if err != nil {
		t.Fatal(err)
	}
	return "DKIM-Signature: " + value + base64.StdEncoding.EncodeToString(sig) + "\r\n" + msg
}

// simpleBody is a body as the simple canonicalization has it (RFC 6376
// section 3.4.3): empty lines at its end removed, and one line end.
func simpleBody(body string) string {
	return strings.TrimRight(body, "\r\n") + "\r\n"
}

// relaxedBody is a body as the relaxed canonicalization has it (RFC 6376
// section 3.4.4): runs of white space one space, none at a line's end,
// empty lines at the end removed, and a line end after the last line.
func relaxedBody(body string) string {
	lines := strings.Split(body, "\r\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(wsp.ReplaceAllString(l, " "), " ")
	}
	out := strings.TrimRight(strings.Join(lines, "\r\n"), "\r\n")
	if out == "" {
		return ""
	}
	return out + "\r\n"
}

var wsp = regexp.MustCompile(`[ \t]+`)

// relaxedField is a header field as the relaxed canonicalization has it
// (RFC 6376 section 3.4.2).
func relaxedField(f string) string {
	name, value, _ := strings.Cut(f, ":")
	value = strings.NewReplacer("\r\n", "").Replace(value)
	value = strings.TrimSpace(wsp.ReplaceAllString(value, " "))
	return strings.ToLower(strings.TrimSpace(name)) + ":" + value + "\r\n"
}

// fieldOf is the field called name in head, unfolded.
func fieldOf(t testing.TB, head, name string) string {
	for _, line := range strings.Split(head, "\r\n") {
		if n, _, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(n), name) {
			return line
		}
	}
	t.Fatalf("the message has no %s field", name)
	return ""
}
