package mailauth

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
	"tempmail/mailbox"

	"github.com/emersion/go-msgauth/dkim"
)

// How a message's DKIM signatures are checked, cheapest first, each step
// for the signatures the steps before left open:
//
//   - each signature's field is judged alone (dkimsig.go): bounds a real
//     signature keeps, and l=;
//   - each key is asked for once, however many signatures name it, and
//     vetted; a refused record is remembered for its TTL (dkimkey.go);
//   - the library is given the header fields verification reads, bounded,
//     without the signatures already concluded, and the body
//     (dkimheader.go); it hashes the body for each signature it checks.
//
// A signature whose field or key shows that it cannot pass costs no hash
// of the body, and when its field shows it, or its key was refused
// before, no DNS question either. One that may pass costs what the
// library spends on it, a hash of the body, within the time budget.

// Reasons for results the library would not give.
const (
	reasonBodyLength = "l= leaves part of the body unsigned"
	reasonOutOfTime  = "checks ran out of time"
)

// checkDKIM checks the message's first MaxSignatures DKIM signatures
// within ctx: when ctx ends, the library reads no more of the message,
// and what it had not concluded is temperror.
func (v *Verifier) checkDKIM(ctx context.Context, msg []byte) (out []mailbox.DKIM) {
	sigs := readSignatures(msg)
	out = make([]mailbox.DKIM, len(sigs))
	for i, s := range sigs {
		out[i] = mailbox.DKIM{Result: PermError, Domain: cleanDomain(s.tags["d"]), Selector: cleanDomain(s.tags["s"])}
	}
	if len(out) == 0 {
		return out
	}
	defer recoverAs(func() {}) // what was not concluded stays permerror
	keys := v.lookupKeys(ctx, sigs)
	judgeCovering(sigs)
	pieces := libraryMessage(msg, sigs)
	var left []int // the signatures the library checks, in order
	for i, s := range sigs {
		if s.result == "" {
			left = append(left, i)
		} else {
			out[i].Result, out[i].Reason = s.result, s.reason
		}
	}
	if len(left) == 0 {
		return out
	}
	readers := make([]io.Reader, len(pieces))
	for i, p := range pieces {
		readers[i] = bytes.NewReader(p)
	}
	body := &budgetReader{ctx: ctx, r: io.MultiReader(readers...)}
	lookup := func(name string) ([]string, error) {
		fqdn, _ := lookupName(name)
		if k, ok := keys[fqdn]; ok {
			return k.txts, k.err
		}
		return nil, errNoAnswer
	}
	verifs, err := dkim.VerifyWithOptions(body, &dkim.VerifyOptions{MaxVerifications: len(left), LookupTXT: lookup})
	if err != nil && !errors.Is(err, dkim.ErrTooManySignatures) {
		// The header block cannot be read: every signature left is
		// permerror, or temperror when it was not read for want of time.
		if body.cut.Load() {
			for _, i := range left {
				out[i].Result, out[i].Reason = TempError, reasonOutOfTime
			}
		}
		return out
	}
	for j, vf := range verifs {
		if j >= len(left) {
			break
		}
		i := left[j]
		out[i].Result = dkimResult(vf.Err)
		if body.cut.Load() && (out[i].Result == Fail || out[i].Result == TempError) {
			// What was hashed was not the whole body.
			out[i].Result, out[i].Reason = TempError, reasonOutOfTime
		}
	}
	return out
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
