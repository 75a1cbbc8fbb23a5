// Package mailauth checks the authentication of received mail: SPF of the
// client's address for the MAIL FROM domain (or the HELO name), every DKIM
// signature, and the DMARC policy of the From domain against the aligned
// results, and states what it found as an RFC 8601 Authentication-Results
// header field.
//
// The checks themselves are libraries': blitiri.com.ar/go/spf, and
// emersion/go-msgauth's dkim and dmarc (record parsing); this package only
// runs them at once, bounds them, and applies DMARC's alignment (RFC 7489
// section 3.1), which go-msgauth leaves to its callers. Its Resolver asks
// DNS with a short timeout per question and keeps answers, negative ones
// too, for their TTL in a cache bounded by entries; no answer at all is
// kept 30 s, so that name servers that are down cost each message nothing
// more.
//
// What one message can cost is bounded: one Verify has one budget for
// all its checks, its Timeout (DefaultTimeout, 2 s) or its context's end
// (the SMTP session's), whichever comes first. What DNS has not answered
// by then is temperror, and the DKIM library is given no more of the
// message to hash. SPF stops at the 10 DNS-querying terms RFC 7208
// allows, and at 10 names for each mx or ptr (its library enforces
// both); DKIM checks the first MaxSignatures signatures and ignores the
// rest. A signature costs at most one DNS question, asked once for all
// the signatures that name the same key, a hash of the body and one
// signature check with a key this package has vetted first (dkimkey.go:
// a record of at most 4 KiB, RSA of at most 4096 bits with an exponent
// of 3 or 65537), since the library and crypto/rsa take a key of any
// size.
//
// What a hostile sender writes costs nothing beyond that, and what
// cannot pass costs less (dkim.go says the order). A signature whose
// field shows it cannot pass with an accepted key, or would cost more
// than a real one, is permerror (l=: policy) with no DNS question and
// no hash (dkimsig.go: b= longer than a 4096-bit key's signature, d= or
// s= that are no domain names, bh= that is no SHA-256 hash, h= of more
// than 64 names, a field over 16 KiB). A key record refused is
// remembered by the Verifier for its TTL, so the next messages that
// name it cost no question and no vetting. The library is given only
// the header fields verification reads, bounded, and none of the
// signatures already concluded (dkimheader.go). So five signatures
// naming a 380,000-bit key on a 200 KB message cost well under a
// millisecond of CPU above the same message unsigned
// (BenchmarkVerifyHostileDKIM). What is left is what real signatures
// cost: a forged b= under a real key with a correct bh= is found out
// after the body is hashed for it, 1 to 3 ms a signature for 200 KB.
//
// Where the libraries' results differ from RFCs the package applies them:
// an SPF record with a syntax error after the term that matched is
// permerror (spf.go, RFC 7208 section 4.6), and a DKIM signature with
// l= is policy (RFC 8601), not fail, whatever its bytes.
//
// It owns the verification and the header's text. It must not decide what
// to do with mail that fails (tempmail takes it all and shows the result),
// store anything, or know of SMTP sessions or the API: callers give it an
// Input and take a mailbox.Auth.
package mailauth
