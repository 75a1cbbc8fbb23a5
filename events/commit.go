package events

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Group commit. The server puts every write on disk before it answers
// (--sync always), so deliveries stored one by one would each wait for a
// disk flush of their own, and under load most of the time would go to
// flushing. Instead one committer per store takes the messages of every
// delivery waiting when it looks, and stores them as one atomic batch: a
// single node puts a batch on disk with one flush, and answers it after;
// a cluster appends it to the Raft log as one entry. Before the batch, one
// flush of the key file puts the keys its messages are sealed under on
// disk. So a round costs two flushes, however many deliveries it carries,
// and the deliveries that come while a round is on its way make the next.
//
// A shared batch is stored whole or not at all. When the server refuses it
// because of one message (a retry already stored, an inbox that ended),
// every caller is told errCommitAlone and stores its own messages alone, as
// they would have without the committer, which then finds out whose message
// it was. A caller's own deadline ends its wait, not the round.

const (
	// commitMaxMsgs bounds a round's messages; the server takes batches of
	// up to 1,000.
	commitMaxMsgs = 256
	// commitMaxBytes bounds a round's bytes, which the server holds in
	// memory until the batch commits; a message is at most InlineRawMax
	// plus its summary.
	commitMaxBytes = 8 << 20
	// commitTimeout bounds a round whose callers set no deadline.
	commitTimeout = 30 * time.Second
)

// errCommitAlone: a shared round was refused as a whole because of one of
// its messages; nothing of it is stored, and each caller stores its own.
var errCommitAlone = errors.New("the shared commit was refused; store alone")

type committer struct {
	s     *Store
	queue chan *commitReq
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

type commitReq struct {
	ctx   context.Context
	msgs  []*nats.Msg
	bytes int
	res   chan commitRes // buffered: the committer never waits for a caller
}

type commitRes struct {
	acks []Ack
	err  error
}

func newCommitter(s *Store) *committer {
	c := &committer{s: s, queue: make(chan *commitReq, commitMaxMsgs), stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

// close stops the committer once the round under way is answered; a
// caller still waiting is told the store is closed.
func (c *committer) close() {
	c.once.Do(func() { close(c.stop) })
	<-c.done
}

var errStoreClosed = errors.New("the event store is closed")

// commit stores msgs, in their order, with those of whoever else is
// waiting, and returns their acks; or errCommitAlone (nothing stored), or
// another error: a failure of the key file's flush (nothing stored) or of
// the store, whose outcome may be unknown (IsUnknownOutcome).
func (c *committer) commit(ctx context.Context, msgs []*nats.Msg) ([]Ack, error) {
	r := &commitReq{ctx: ctx, msgs: msgs, res: make(chan commitRes, 1)}
	for _, m := range msgs {
		r.bytes += len(m.Data) + len(m.Subject) + 256 // and its headers, about
	}
	select {
	case c.queue <- r:
	case <-c.stop:
		return nil, unavailable(errStoreClosed)
	case <-ctx.Done():
		return nil, unavailable(ctx.Err()) // not sent: nothing stored
	}
	select {
	case res := <-r.res:
		return res.acks, res.err
	case <-ctx.Done():
		// In the committer's hands: it may yet be stored.
		return nil, unknown(ctx.Err())
	}
}

func (c *committer) run() {
	defer close(c.done)
	var next *commitReq // taken from the queue, but over the last round's bounds
	for {
		first := next
		if first == nil {
			select {
			case first = <-c.queue:
			case <-c.stop:
				c.refuseWaiting()
				return
			}
		}
		next = nil
		round := []*commitReq{first}
		n, size := len(first.msgs), first.bytes
	gather:
		for n < commitMaxMsgs {
			select {
			case r := <-c.queue:
				if n+len(r.msgs) > commitMaxMsgs || size+r.bytes > commitMaxBytes {
					next = r
					break gather
				}
				round = append(round, r)
				n, size = n+len(r.msgs), size+r.bytes
			default:
				break gather
			}
		}
		c.round(round)
	}
}

// refuseWaiting answers what is queued when the store closes.
func (c *committer) refuseWaiting() {
	for {
		select {
		case r := <-c.queue:
			r.res <- commitRes{err: unavailable(errStoreClosed)}
		default:
			return
		}
	}
}

// round stores one round's messages and answers its callers.
func (c *committer) round(round []*commitReq) {
	answer := func(err error) {
		for _, r := range round {
			r.res <- commitRes{err: err}
		}
	}
	if err := c.s.keys.Flush(); err != nil {
		answer(err)
		return
	}
	// The round lasts as long as its most patient caller waits.
	deadline := time.Now().Add(commitTimeout)
	for i, r := range round {
		if d, ok := r.ctx.Deadline(); ok && (i == 0 || d.After(deadline)) {
			deadline = d
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var msgs []*nats.Msg
	for _, r := range round {
		msgs = append(msgs, r.msgs...)
	}
	var acks []Ack
	var err error
	if len(msgs) == 1 {
		var ack Ack
		if ack, err = c.s.publish(ctx, msgs[0]); err == nil && ack.Duplicate {
			// Stored before, by an earlier delivery: the caller finds out
			// which (publishCopy).
			err = errCommitAlone
		}
		acks = []Ack{ack}
	} else {
		acks, err = c.s.publishBatch(ctx, msgs)
	}
	switch {
	case err == nil:
		for _, r := range round {
			r.res <- commitRes{acks: acks[:len(r.msgs):len(r.msgs)]}
			acks = acks[len(r.msgs):]
		}
	case isWrongLastSeq(err) || errors.Is(err, errBatchDuplicate):
		answer(errCommitAlone)
	default:
		answer(err)
	}
}
