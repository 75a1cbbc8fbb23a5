package ingest

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// byteBudget bounds the message bytes all SMTP sessions hold in memory at
// once. Sessions take from it as the bytes arrive and give back when the
// message is stored or refused.
type byteBudget struct {
	max  int64 // 0: unlimited
	used atomic.Int64
}

var errBudget = errors.New("the in-flight byte budget is spent")

// take reserves n bytes, or reports false when that would pass the max.
func (b *byteBudget) take(n int64) bool {
	for {
		cur := b.used.Load()
		if b.max > 0 && cur+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

func (b *byteBudget) give(n int64) { b.used.Add(-n) }

// budgetBuffer collects a message, taking every byte of memory it holds
// (its capacity, not only what it has read) from a budget first.
type budgetBuffer struct {
	budget *byteBudget
	pool   *sync.Pool // of *[]byte of capacity firstSize; nil: none kept
	b      []byte
	held   int64
}

// firstSize is the capacity a message buffer starts with.
const firstSize = 32 << 10

// readFrom reads r into the buffer after gap bytes of room, where the
// headers the service adds go once the message is checked (so adding them
// never copies the message). When the budget is spent it reads the rest
// of r to the end without keeping it (the SMTP conversation must reach the
// end of the data to answer) and returns errBudget.
func (bb *budgetBuffer) readFrom(gap int, r io.Reader) error {
	if !bb.grow(max(int64(gap), firstSize)) {
		_, _ = io.Copy(io.Discard, r)
		return errBudget
	}
	bb.b = bb.b[:gap]
	for {
		// Doubling, up to a MiB at a time: few copies, little slack.
		if len(bb.b) == cap(bb.b) && !bb.grow(min(int64(cap(bb.b)), 1<<20)) {
			_, err := io.Copy(io.Discard, r)
			if err != nil {
				return err
			}
			return errBudget
		}
		n, err := r.Read(bb.b[len(bb.b):cap(bb.b)])
		bb.b = bb.b[:len(bb.b)+n]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// grow adds n bytes of capacity, taken from the budget.
func (bb *budgetBuffer) grow(n int64) bool {
	if !bb.budget.take(n) {
		return false
	}
	bb.held += n
	if cap(bb.b) == 0 && n == firstSize && bb.pool != nil {
		if kept, ok := bb.pool.Get().(*[]byte); ok {
			bb.b = (*kept)[:0]
			return true
		}
	}
	grown := make([]byte, len(bb.b), int64(cap(bb.b))+n)
	copy(grown, bb.b)
	bb.b = grown
	return true
}

// release gives back what the buffer took; it and every slice of it must
// not be used after. A buffer of the first size is kept for the next
// message: allocating and clearing 32 KiB a message was a tenth of the
// bytes the service allocated, and their collection.
func (bb *budgetBuffer) release() {
	bb.budget.give(bb.held)
	if cap(bb.b) == firstSize && bb.pool != nil {
		b := bb.b[:0]
		bb.pool.Put(&b)
	}
	bb.held, bb.b = 0, nil
}
