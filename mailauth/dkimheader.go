package mailauth

import (
	"bytes"
)

// What the DKIM library is given of a message. It checks every
// DKIM-Signature in the header it reads (up to a number), so the
// signatures concluded without it are not in that header: it is given
// the message's header fields that verification reads, and no others,
// then the body. Verification reads the signatures it checks and the
// fields their h= names (RFC 6376 section 5.4.2: the library looks for
// no other); the same fields in the same order give it the same hashes.
// Names compare in ASCII case, as RFC 5322's do: a field whose name only
// Unicode's case folding makes one h= gives (the library's comparison)
// is no field a signer signs.
//
// The library's reading of a header costs more than its size: it joins
// a field's lines one at a time, copying the field so far for each (a
// field of n lines and b bytes costs about n·b: a Subject folded into
// 50,000 lines took 4 s), and looks for each name an h= gives through
// every field. A sender chooses both, so what it is given is bounded,
// and beyond the bounds the signatures are permerror without it.
const (
	// maxLibraryFields: real signatures sign a few dozen fields. Each
	// signature's names (at most maxSignedNames) are looked for through
	// each of them.
	maxLibraryFields = 256
	// maxFoldCost bounds the sum of the fields' lines × bytes, about twice
	// what the library copies: well under a millisecond. A To of 100
	// folded lines costs 0.5 MiB.
	maxFoldCost = 2 << 20
)

// Reasons for signatures that the library is not given for what else
// the message holds.
const (
	reasonSignedHeader = "signed header fields too large to check"
	reasonCovers       = "signs a DKIM-Signature not checked"
)

// judgeCovering concludes the signatures whose h= names DKIM-Signature
// when another signature was concluded without the library: the library
// cannot be given that signature's field without checking it, nor the
// header without it without changing what the signing signature signs.
// So rare a case (a signer that signs earlier signatures, and one of
// them refused) is not worth a result that could be wrong.
func judgeCovering(sigs []signature) {
	concluded := false
	for _, s := range sigs {
		concluded = concluded || s.result != ""
	}
	for i, s := range sigs {
		if concluded && s.result == "" && s.signsSignatures {
			sigs[i].result, sigs[i].reason = PermError, reasonCovers
		}
	}
}

// libraryMessage returns the message as the library is to read it, the
// pieces of msg it is made of in order: the header fields verification
// reads (the signatures still to check, the fields they name, and, for a
// signature that signs signatures, those after the first MaxSignatures),
// then the rest of msg from the header's end. It returns nil when no
// signature is left to check; when the fields are beyond the bounds, it
// concludes every signature left, and returns nil.
func libraryMessage(msg []byte, sigs []signature) (pieces [][]byte) {
	named, signsSignatures, checks := signedNames(sigs)
	if checks == 0 {
		return nil
	}
	var lower []byte
	var spans [][2]int // of msg, the fields taken
	fields, cost, nth, headerEnd := 0, 0, 0, 0
	eachField(msg, func(_ []byte, start, end int) bool {
		f := msg[start:end]
		headerEnd = end
		take := false
		if isSignature(f) {
			take = nth < len(sigs) && sigs[nth].result == "" || nth >= len(sigs) && signsSignatures
			nth++
		} else {
			lower = appendASCIILower(lower[:0], fieldName(f))
			take = named[string(lower)]
		}
		if !take {
			return true
		}
		fields++
		cost += (bytes.Count(f, []byte("\n")) + 1) * len(f)
		if fields > maxLibraryFields || cost > maxFoldCost {
			return false
		}
		if n := len(spans); n > 0 && spans[n-1][1] == start {
			spans[n-1][1] = end // the field follows the previous one taken
		} else {
			spans = append(spans, [2]int{start, end})
		}
		return true
	})
	if fields > maxLibraryFields || cost > maxFoldCost {
		for i := range sigs {
			if sigs[i].result == "" {
				sigs[i].result, sigs[i].reason = PermError, reasonSignedHeader
			}
		}
		return nil
	}
	for _, sp := range spans {
		pieces = append(pieces, msg[sp[0]:sp[1]])
	}
	return append(pieces, msg[headerEnd:])
}

// signedNames is what the signatures still to check sign: the field names
// their h= gives, and whether one names DKIM-Signature; and how many they
// are.
func signedNames(sigs []signature) (named map[string]bool, signsSignatures bool, checks int) {
	named = map[string]bool{}
	for _, s := range sigs {
		if s.result != "" {
			continue
		}
		checks++
		for _, n := range s.signs {
			named[n] = true
		}
		signsSignatures = signsSignatures || s.signsSignatures
	}
	return named, signsSignatures, checks
}
