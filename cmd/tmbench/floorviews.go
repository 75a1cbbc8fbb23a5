package main

import (
	"context"
	"io"
	"sync"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The views floor (tmbench floor-smtp ADDR DIR views): the floor without
// a flush (floor.go), and the least an event-sourced design adds to it: a
// worker consumes each stored message and writes one view entry for it to
// a KV bucket, of a summary's size, and the 250 waits until the entry is
// stored, as tempmail's waits for its views (a read right after it finds
// the message). Batches as tempmail's workers do: what is pending is
// written at once, then acknowledged at once. Nothing is parsed, sealed
// or counted, and one worker applies every inbox's events.
type viewsFloor struct {
	js jetstream.JetStream

	mu      sync.Mutex
	applied uint64 // the last stream sequence whose entry is stored
	moved   *sync.Cond
}

// summary is the size of a listed message's entry in tempmail's views.
const summary = `{"id":"01a1ffc8-0e02-78ad-a214-819f62634042","at":"2026-11-29T09:00:00.000000000Z","size":4096,"seq":1,"key":1,"print":{"raw":1}}`

func startViewsFloor(js jetstream.JetStream) *viewsFloor {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "VIEWS", History: 1}); err != nil {
		fail(err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, "MAIL", jetstream.ConsumerConfig{Durable: "views", AckPolicy: jetstream.AckAllPolicy, MaxAckPending: 10000})
	if err != nil {
		fail(err)
	}
	f := &viewsFloor{js: js}
	f.moved = sync.NewCond(&f.mu)
	it, err := cons.Messages()
	if err != nil {
		fail(err)
	}
	go f.work(it)
	return f
}

// work writes an entry for each message, a batch at a time.
func (f *viewsFloor) work(it jetstream.MessagesContext) {
	for {
		msg, err := it.Next()
		if err != nil {
			fail(err)
		}
		batch := []jetstream.Msg{msg}
		for len(batch) < 256 {
			md, err := batch[len(batch)-1].Metadata()
			if err != nil || md.NumPending == 0 {
				break
			}
			next, err := it.Next(jetstream.NextMaxWait(50 * time.Millisecond))
			if err != nil {
				break
			}
			batch = append(batch, next)
		}
		futures := make([]jetstream.PubAckFuture, len(batch))
		for i, m := range batch {
			out := nats.NewMsg("$KV.VIEWS.i." + m.Subject()[len("mail."):])
			out.Data = []byte(summary)
			if futures[i], err = f.js.PublishMsgAsync(out); err != nil {
				fail(err)
			}
		}
		for _, fu := range futures {
			select {
			case <-fu.Ok():
			case err := <-fu.Err():
				fail(err)
			}
		}
		last := batch[len(batch)-1]
		md, err := last.Metadata()
		if err != nil {
			fail(err)
		}
		if err := last.Ack(); err != nil {
			fail(err)
		}
		f.mu.Lock()
		f.applied = md.Sequence.Stream
		f.moved.Broadcast()
		f.mu.Unlock()
	}
}

// wait returns once the entry of the message stored at seq is.
func (f *viewsFloor) wait(seq uint64) {
	f.mu.Lock()
	for f.applied < seq {
		f.moved.Wait()
	}
	f.mu.Unlock()
}

// viewsSession is a floor session whose 250 waits for its message's view.
type viewsSession struct {
	floorSession
	views *viewsFloor
}

func (s *viewsSession) Data(r io.Reader) error {
	seq, err := s.store(r)
	if err != nil {
		return err
	}
	s.views.wait(seq)
	return nil
}

type viewsBackend struct {
	js    jetstream.JetStream
	views *viewsFloor
}

func (b viewsBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &viewsSession{floorSession: floorSession{js: b.js}, views: b.views}, nil
}

// floorViews names the views floor in the durability scenario.
const floorViews = "floor: go-smtp + JetStream + a view entry a message, no fsync"
