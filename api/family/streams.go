package family

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"tempmail"
	"tempmail/projections"
)

// Server-Sent Events (docs/waiting.md "Event streams"): an inbox's
// changes as they are applied, fed by the process's change hub (no NATS
// consumer per client). Each event's id is the stream sequence of the
// event that made it; a client that reconnects with Last-Event-ID gets
// what it missed, from the views (projections.Reader.Changes).

const (
	// DefaultKeepAlive is how often an idle stream sends a comment, so that
	// proxies do not close it.
	DefaultKeepAlive = 15 * time.Second
	// streamWriteTimeout bounds each write to a stream: a client that
	// stops reading is let go.
	streamWriteTimeout = 30 * time.Second
	// streamRetry is what EventSource waits before it reconnects.
	streamRetry = 2 * time.Second
	// streamCoalesce is the least time between two writes of changes to
	// one stream. The first change after a quiet spell is told at once;
	// those that follow within it are told together, in one write. Under
	// a burst of mail the cost of an inbox's streams then grows with their
	// number, not with the number of messages times theirs: a write (a
	// system call, and the peer's wake-up) is most of what a wake costs
	// (docs/BENCHMARKS.md, "Event streams").
	streamCoalesce = 20 * time.Millisecond
)

// Render turns a new message's summary into the list element of the
// stream's family.
type Render func(in *projections.Inbox, s *projections.Summary) any

// RenderChange turns a message read or deleted into the event a family's
// clients expect, when that is not the default: an event named for the
// change ("read", "deleted") whose data is {"id"}.
type RenderChange func(in *projections.Inbox, kind projections.ChangeKind, id string) (event string, data any)

// renderers are a stream's: change is nil for the default.
type renderers struct {
	message Render
	change  RenderChange
}

// lastEventID reads where a reconnecting client left off; ok is false for
// a fresh stream.
func lastEventID(r *http.Request) (seq uint64, ok bool, err error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		return 0, false, nil
	}
	seq, err = strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, false, tempmail.Errorf(tempmail.Invalid, "Last-Event-ID must be the id of an event of this stream (a whole number)")
	}
	return seq, true, nil
}

// Stream answers with in's changes until the inbox ends (expired, then
// the stream closes), the client goes, or the service stops.
func (s *Kit) Stream(w http.ResponseWriter, r *http.Request, in *projections.Inbox, render Render) {
	s.StreamWith(w, r, in, render, nil)
}

// StreamWith is Stream with the events of messages read and deleted
// rendered by change.
func (s *Kit) StreamWith(w http.ResponseWriter, r *http.Request, in *projections.Inbox, render Render, change RenderChange) {
	cursor, resumed, err := lastEventID(r)
	if err != nil {
		WriteError(w, r, s.Log, err)
		return
	}
	if r.Method == http.MethodHead {
		// What a GET would begin with, and no stream: a HEAD has no body
		// to hold open, nor a place among the waiters.
		streamHeaders(w)
		w.WriteHeader(http.StatusOK)
		return
	}
	// An id beyond the inbox's last change is none this stream sent (made
	// up, or another service's): nothing after it would ever be told. The
	// client is told to start again from the list, and the stream goes on
	// from now.
	beyond := resumed && cursor > s.Views.Cursor(in)
	if !resumed || beyond {
		cursor = s.Views.Cursor(in)
	}
	release, err := s.Waiters.Acquire(r, s.ClientOf(r))
	if err != nil {
		WriteError(w, r, s.Log, err)
		return
	}
	defer release()
	changed, cancel := s.Views.Hub().Subscribe(projections.InboxTopic(in.ID))
	defer cancel()

	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{}) // the server's ReadTimeout would end the request's context
	streamHeaders(w)
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: rc}
	sw.printf("retry: %d\n\n", streamRetry.Milliseconds())
	if beyond {
		sw.event(cursor, string(projections.ChangeReset), struct{}{})
	}
	sw.flush()
	clock := s.newStreamClock(in)
	defer clock.stop()
	s.tell(r.Context(), sw, in, cursor, renderers{render, change}, changed, clock)
}

// streamClock is what a stream waits on besides its inbox's changes.
type streamClock struct {
	ping *time.Ticker // a keep-alive comment is due
	// aged fires when the stream has lived --max-stream-age (less up to a
	// tenth, so that streams opened together do not all come back
	// together): it then ends with its last id and a retry, EventSource
	// comes back with Last-Event-ID and misses nothing, and a client that
	// stopped reading gives its place back. Nil: streams live on.
	aged *time.Timer
	// expired fires when the inbox expires; nil: it never does.
	expired *time.Timer
	// coalesce holds what follows a write for the rest of streamCoalesce.
	coalesce *time.Timer
}

func (s *Kit) newStreamClock(in *projections.Inbox) *streamClock {
	c := &streamClock{ping: time.NewTicker(s.KeepAlive), coalesce: time.NewTimer(streamCoalesce)}
	c.coalesce.Stop() // started by each hold
	if age := s.Config.MaxStreamAge; age > 0 {
		c.aged = time.NewTimer(age - rand.N(age/10+1))
	}
	if !in.ExpiresAt.IsZero() {
		c.expired = time.NewTimer(time.Until(in.ExpiresAt))
	}
	return c
}

// fired is t's channel; nil (never ready) for no timer.
func fired(t *time.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

func (c *streamClock) stop() {
	c.ping.Stop()
	c.coalesce.Stop()
	for _, t := range []*time.Timer{c.aged, c.expired} {
		if t != nil {
			t.Stop()
		}
	}
}

// tell writes in's changes after cursor, on each wake, until the inbox
// ends, the stream has lived its age, the client goes or the service
// stops.
func (s *Kit) tell(ctx context.Context, sw *sseWriter, in *projections.Inbox, cursor uint64, render renderers,
	changed <-chan struct{}, clock *streamClock) {
	var told time.Time // when changes were last written
	for sw.err == nil {
		cur, err := s.Views.Inbox(ctx, in.ID)
		if tempmail.KindOf(err) == tempmail.NotFound || (err == nil && !cur.Live(time.Now())) {
			sw.end(cursor, in)
			sw.flush()
			return
		}
		if err == nil {
			in = cur
			var sent bool
			if cursor, sent, err = s.send(ctx, sw, in, cursor, render); sent {
				sw.flush()
				told = time.Now()
			}
		}
		if err != nil && ctx.Err() == nil {
			s.Log.Warn("event stream: cannot read the views; closing it", "inbox", in.ID, "err", err)
			return // the client reconnects and resumes
		}
		select {
		case <-changed:
			// Hold what follows a write for the rest of streamCoalesce,
			// so that a burst is told in one write.
			if wait := streamCoalesce - time.Since(told); wait > 0 {
				clock.coalesce.Reset(wait)
				select {
				case <-clock.coalesce.C:
				case <-ctx.Done():
					return
				case <-s.Closing:
					return
				}
			}
		case <-clock.ping.C:
			sw.printf(": keep-alive\n\n")
			sw.flush()
		case <-fired(clock.expired):
		case <-fired(clock.aged):
			sw.printf("id: %d\nretry: %d\n\n", cursor, streamRetry.Milliseconds())
			sw.flush()
			return
		case <-ctx.Done():
			return
		case <-s.Closing:
			return
		}
	}
}

func streamHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on as it comes
}

// send writes the changes after cursor, unflushed, and returns the new
// cursor and whether it wrote any.
func (s *Kit) send(ctx context.Context, sw *sseWriter, in *projections.Inbox, cursor uint64, render renderers) (uint64, bool, error) {
	changes, err := s.Views.Changes(ctx, in, cursor)
	if err != nil {
		return cursor, false, err
	}
	for _, c := range changes {
		event, data := string(c.Kind), any(map[string]string{"id": c.ID})
		switch {
		case c.Kind == projections.ChangeMessage:
			data = render.message(in, c.Summary)
		case c.Kind == projections.ChangeReset:
			data = struct{}{}
		case c.Kind == projections.ChangeAttempt:
			data = AttemptOf(c.Attempt)
		case render.change != nil:
			event, data = render.change(in, c.Kind, c.ID)
		}
		sw.event(c.Seq, event, data)
		cursor = c.Seq
	}
	return cursor, len(changes) > 0, nil
}

// sseWriter writes events, and flushes what it wrote when told to: the
// writes between two flushes share one deadline and reach the client
// together. It keeps the first error: after it, nothing more is written.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	pending bool // written since the last flush, under the deadline set then
	err     error
}

func (sw *sseWriter) printf(format string, args ...any) {
	if sw.err != nil {
		return
	}
	if !sw.pending {
		// A write may reach the socket before the flush (a large
		// message's event fills the buffer): the deadline covers it.
		_ = sw.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		sw.pending = true
	}
	_, sw.err = fmt.Fprintf(sw.w, format, args...)
}

// flush sends what was written since the last flush.
func (sw *sseWriter) flush() {
	if sw.err != nil || !sw.pending {
		return
	}
	sw.err = sw.rc.Flush()
	sw.pending = false
}

func (sw *sseWriter) event(id uint64, name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		sw.err = err
		return
	}
	sw.printf("id: %d\nevent: %s\ndata: %s\n\n", id, name, b)
}

// end tells the client the inbox is gone (docs/waiting.md: expired, and the stream
// then ends): by its time, or because it was deleted. It names the inbox
// by its id and its address (a family C client knows only the latter), and
// carries the last change's id: a client that still reconnects with it is
// answered 404.
func (sw *sseWriter) end(cursor uint64, in *projections.Inbox) {
	reason := "deleted"
	if !in.ExpiresAt.IsZero() && !time.Now().Before(in.ExpiresAt) {
		reason = "expired"
	}
	sw.event(cursor, "expired", map[string]string{"id": in.ID, "address": in.Address, "reason": reason})
}
