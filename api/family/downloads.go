package family

import (
	"context"
	"time"

	"golang.org/x/sync/semaphore"

	"tempmail"
	"tempmail/mailbox"
)

// Reading an attachment parses its whole message: the raw source and every
// part decoded, a few times the message's size in memory, and then the
// attachment itself until the client has it. How many downloads run at
// once is the clients' choice, so what they hold together is bounded:
// each takes parseWeight of parseBudget (at least 256 MiB, and room for
// the largest message) while it parses, and its attachment's size while
// it is written. A download that finds no room waits for it, up to
// parseWait, and is then answered 503.
const (
	minParseBudget = 256 << 20
	parseFactor    = 3 // the raw source, the parts decoded, and the parser's own
	parseWait      = 10 * time.Second
)

// Downloads holds the room downloads take.
type Downloads struct {
	sem    *semaphore.Weighted
	budget int64
	wait   time.Duration // tests shorten it
}

func NewDownloads(maxMessageBytes int64) Downloads {
	budget := max(minParseBudget, parseFactor*maxMessageBytes)
	return Downloads{sem: semaphore.NewWeighted(budget), budget: budget, wait: parseWait}
}

var errTooManyDownloads = tempmail.Errorf(tempmail.Unavailable, "too many large attachments are being read at once; try again shortly")

// take holds room for parsing m, waiting up to d.wait for it.
func (d *Downloads) take(ctx context.Context, m *mailbox.Message) (int64, error) {
	n := min(d.budget, parseFactor*max(m.Size, 1))
	ctx, cancel := context.WithTimeout(ctx, d.wait)
	defer cancel()
	if err := d.sem.Acquire(ctx, n); err != nil {
		return 0, errTooManyDownloads
	}
	return n, nil
}

// keep gives back what a parse held, but for keep bytes (the attachment,
// held while it is written), and returns what is still held.
func (d *Downloads) keep(held, keep int64) int64 {
	keep = min(held, keep)
	d.sem.Release(held - keep)
	return keep
}

// Fill takes all the room downloads share, as downloads in flight would,
// and makes a download that finds none wait only wait before it is
// answered 503: the tests' way to see a full room. free gives the room
// back; ok is false, and nothing is taken, when some download holds room.
func (d *Downloads) Fill(wait time.Duration) (free func(), ok bool) {
	d.wait = wait
	if !d.sem.TryAcquire(d.budget) {
		return nil, false
	}
	return func() { d.sem.Release(d.budget) }, true
}

// Idle reports whether no download holds any room.
func (d *Downloads) Idle() bool {
	if !d.sem.TryAcquire(d.budget) {
		return false
	}
	d.sem.Release(d.budget)
	return true
}
