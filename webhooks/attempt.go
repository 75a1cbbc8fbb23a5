package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/events"
	"tempmail/logs"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/retry"
	"tempmail/wire"
)

// lane is one subscription's share of a process: the jobs it holds, and
// slots for the attempts that run at once.
type lane struct {
	held  int
	slots chan struct{}
}

// Start starts delivering, reading subscriptions and messages from views,
// until Stop.
func (w *Webhooks) Start(views *projections.Reader) {
	w.views = views
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.pull(ctx)
	}()
}

// Stop stops pulling and waits for the attempts under way; jobs not yet
// attempted go back to the stream.
func (w *Webhooks) Stop() {
	if w.cancel != nil {
		w.cancel()
	}
	w.wg.Wait()
}

// pull hands jobs to their lanes as they come, until ctx ends.
func (w *Webhooks) pull(ctx context.Context) {
	for ctx.Err() == nil {
		it, err := w.cons.Messages(jetstream.PullMaxMessages(256))
		if err != nil {
			w.logger.Warn("webhooks: cannot consume jobs; retrying", "err", err)
			retry.Resume.Sleep(ctx, 0)
			continue
		}
		stop := context.AfterFunc(ctx, it.Stop)
		for {
			msg, err := it.Next()
			if err != nil {
				if !errors.Is(err, jetstream.ErrMsgIteratorClosed) {
					w.logger.Debug("webhooks: job consumer interrupted; resuming", "err", err)
				}
				break
			}
			select {
			case w.held <- struct{}{}:
			case <-ctx.Done():
				_ = msg.Nak()
				continue
			}
			w.take(ctx, msg)
		}
		stop()
		it.Stop()
	}
}

// take puts a job in its subscription's lane, or off when the lane is full.
func (w *Webhooks) take(ctx context.Context, msg jetstream.Msg) {
	var j job
	if err := json.Unmarshal(msg.Data(), &j); err != nil || j.Webhook == "" {
		w.logger.Error("webhooks: a job that cannot be read is dropped", "subject", msg.Subject(), "err", err)
		_ = msg.Term()
		<-w.held
		return
	}
	w.mu.Lock()
	l := w.lanes[j.Webhook]
	if l == nil {
		l = &lane{slots: make(chan struct{}, laneConcurrency)}
		w.lanes[j.Webhook] = l
	}
	full := l.held >= laneMax
	if !full {
		l.held++
	}
	w.mu.Unlock()
	if full {
		w.putOff(ctx, msg, j)
		<-w.held
		return
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() {
			w.mu.Lock()
			if l.held--; l.held == 0 {
				delete(w.lanes, j.Webhook)
			}
			w.mu.Unlock()
			<-w.held
		}()
		// A job waiting in its lane tells the server it is still held, and
		// its attempt gets a whole ackWait from when it starts.
		tick := time.NewTicker(ackWait / 3)
		defer tick.Stop()
		for waiting := true; waiting; {
			select {
			case l.slots <- struct{}{}:
				waiting = false
			case <-tick.C:
				_ = msg.InProgress()
			case <-ctx.Done():
				_ = msg.Nak()
				return
			}
		}
		defer func() { <-l.slots }()
		_ = msg.InProgress()
		w.attempt(ctx, msg, j)
	}()
}

// putOff schedules a job its lane cannot take now for a little later: the
// more often it was put off, the later, up to ten minutes.
func (w *Webhooks) putOff(ctx context.Context, msg jetstream.Msg, j job) {
	wait := retry.PutOff.Wait(j.Deferred)
	j.Deferred++
	if err := w.later(ctx, j, wait); err != nil {
		_ = msg.NakWithDelay(5 * time.Second)
		return
	}
	w.m.outcome("deferred")
	_ = msg.Ack()
}

// target is where one delivery goes.
type target struct{ url, secret string }

// attempt makes one attempt at a job and settles it: acknowledged when
// delivered, given up or pointless; otherwise its next attempt scheduled.
func (w *Webhooks) attempt(ctx context.Context, msg jetstream.Msg, j job) {
	tgt, err := w.target(ctx, j)
	if tempmail.KindOf(err) == tempmail.NotFound {
		w.m.outcome("dropped") // the subscription ended: nothing to deliver to
		_ = msg.Ack()
		return
	}
	var body []byte
	if err == nil {
		body, err = w.body(ctx, j)
	}
	if err != nil {
		// The views cannot answer now: the same attempt again shortly.
		w.logger.Warn("webhooks: cannot prepare a delivery; trying again", "webhook", j.Webhook, "event", j.ID(), "err", err)
		_ = msg.NakWithDelay(5 * time.Second)
		return
	}
	a := w.post(ctx, tgt, j, body)
	if ctx.Err() != nil && a.StatusCode == 0 {
		_ = msg.Nak() // cut off by stopping: the next process tries again
		return
	}
	octx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	switch {
	case a.Error == "":
		w.m.outcome("delivered")
		w.record(octx, j.Webhook, a)
		w.succeeded(octx, j.Webhook)
	case j.Attempt <= len(w.opts.RetrySchedule):
		next := time.Now().Add(w.opts.RetrySchedule[j.Attempt-1]).UTC()
		a.Next = &next
		retry := j
		retry.Attempt++
		if err := w.later(octx, retry, w.opts.RetrySchedule[j.Attempt-1]); err != nil {
			w.logger.Warn("webhooks: cannot schedule a retry; attempting again soon", "webhook", j.Webhook, "event", j.ID(), "err", err)
			_ = msg.NakWithDelay(5 * time.Second)
			return
		}
		w.m.outcome("failed")
		w.record(octx, j.Webhook, a)
	default:
		a.GaveUp = true
		w.m.outcome("gave_up")
		// Failing first, then the attempt logged as given up: whoever
		// reads the give-up in the log finds the subscription failing.
		if err := w.setState(octx, j.Webhook, State{Failing: true, Since: time.Now().UTC()}); err != nil {
			w.logger.Warn("webhooks: cannot mark a subscription failing", "webhook", j.Webhook, "err", err)
		}
		w.record(octx, j.Webhook, a)
		logs.WebhookGaveUp(w.logger, logs.WebhookGiveUp{WebhookID: j.Webhook, DeliveryID: j.ID(), EventType: j.Kind,
			URL: tgt.url, Attempts: j.Attempt, LastStatus: a.StatusCode, LastError: a.Error})
	}
	_ = msg.Ack()
}

// succeeded clears a subscription's failing mark, if it has one.
func (w *Webhooks) succeeded(ctx context.Context, webhook string) {
	if s, err := w.State(ctx, webhook); err == nil && s.Failing {
		_ = w.setState(ctx, webhook, State{})
	}
}

// target finds where a job goes: its subscription as the views show it
// now, or, for an inbox's end told to the inbox's own subscription (which
// ended with it), what the job brought. NotFound: the subscription ended.
func (w *Webhooks) target(ctx context.Context, j job) (target, error) {
	if j.Final != nil {
		return target{j.Final.URL, j.Final.Secret}, nil
	}
	h, err := w.views.Webhook(ctx, j.Webhook)
	if err != nil {
		return target{}, err
	}
	return target{h.URL, h.Secret}, nil
}

// payload is a delivery's body (docs/webhooks.md "Outbound webhooks"): its data's
// shape follows its type, one schema per type in the OpenAPI document
// (components.schemas.Delivery).
type payload struct {
	Type      string    `json:"type"`
	Timestamp wire.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// receivedData is family A's email summary of a new message, with its inbox.
type receivedData struct {
	InboxID string `json:"inbox_id"`
	Address string `json:"address"`
	wire.EmailSummaryA
	// Authentication is what SPF, DKIM and DMARC said, as in the
	// message's detail; null when not checked.
	Authentication *mailbox.Auth `json:"authentication"`
}

// goneData is a new message deleted before its delivery was made: where
// and what size it was, nothing of what it said.
type goneData struct {
	ID         string    `json:"id"`
	InboxID    string    `json:"inbox_id"`
	Address    string    `json:"address"`
	ReceivedAt wire.Time `json:"received_at"`
	Size       int64     `json:"size"`
}

type readData struct {
	ID      string `json:"id"`
	InboxID string `json:"inbox_id"`
	Address string `json:"address"`
}

// deletedData says why a message went: its reason is always there, empty
// for a person's deletion, so that a client need not tell absent from empty.
type deletedData struct {
	ID      string `json:"id"`
	InboxID string `json:"inbox_id"`
	Address string `json:"address"`
	Reason  string `json:"reason"`
}

type inboxData struct {
	InboxID string `json:"inbox_id"`
	Address string `json:"address"`
}

// body builds a job's body. A new message is described as the views show
// it when the attempt is made: what it says is never copied into the
// outbox, and a message deleted before its delivery is delivered with its
// ids, time and size only, which the job brought.
func (w *Webhooks) body(ctx context.Context, j job) ([]byte, error) {
	p := payload{Type: j.Kind, Timestamp: wire.At(j.At)}
	switch j.Kind {
	case mailbox.HookMessageReceived:
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := w.views.WaitApplied(wctx, events.Ack{Seq: j.Seq, Partition: j.Partition})
		cancel()
		if err != nil {
			return nil, err
		}
		m, _, err := w.views.Message(ctx, j.MessageID)
		switch {
		case err == nil:
			p.Data = receivedData{InboxID: j.InboxID, Address: j.Address, EmailSummaryA: summaryA(m),
				Authentication: m.Auth}
		case tempmail.KindOf(err) == tempmail.NotFound:
			at := j.ReceivedAt
			if at.IsZero() {
				at = j.At // a job enqueued by a version that did not keep the message's time
			}
			p.Data = goneData{ID: j.MessageID, InboxID: j.InboxID, Address: j.Address,
				ReceivedAt: wire.At(at), Size: j.Size}
		default:
			return nil, err
		}
	case mailbox.HookMessageRead:
		p.Data = readData{ID: j.MessageID, InboxID: j.InboxID, Address: j.Address}
	case mailbox.HookMessageDeleted:
		p.Data = deletedData{ID: j.MessageID, InboxID: j.InboxID, Address: j.Address, Reason: j.Reason}
	default:
		p.Data = inboxData{InboxID: j.InboxID, Address: j.Address}
	}
	return json.Marshal(p)
}

// post makes one signed POST and says how it went.
func (w *Webhooks) post(ctx context.Context, tgt target, j job, body []byte) (a Attempt) {
	start := time.Now()
	a = Attempt{EventID: j.ID(), EventType: j.Kind, Attempt: j.Attempt, At: start.UTC()}
	defer func() {
		a.DurationMS = time.Since(start).Milliseconds()
		w.m.attemptSeconds.Observe(time.Since(start).Seconds())
	}()
	sig, err := sign(tgt.secret, j.ID(), start.Unix(), body)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	actx, cancel := context.WithTimeout(ctx, w.opts.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, tgt.url, bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "tempmail-webhooks/"+w.opts.Version)
	req.Header.Set("webhook-id", j.ID())
	req.Header.Set("webhook-timestamp", strconv.FormatInt(start.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := w.client.Do(req)
	if err != nil {
		a.Error = describe(err, w.opts.AttemptTimeout)
		return a
	}
	defer resp.Body.Close()
	a.StatusCode = resp.StatusCode
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		kept, _ := io.ReadAll(io.LimitReader(resp.Body, maxKeptResponse))
		a.Response = string(bytes.ToValidUTF8(kept, []byte("?")))
	} else {
		// Only a receiver that took the delivery has its answer shown:
		// otherwise a subscription would read what any server says to a
		// POST, and the log would be a scanner's.
		a.Error = fmt.Sprintf("the receiver answered %d", resp.StatusCode)
		if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != "" {
			a.Error += " (a redirect, which is not followed)"
		}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	return a
}

// describe says why a POST got no answer, in a receiver's owner's terms,
// briefly: the log keeps a reason, not what the far end said.
func describe(err error, timeout time.Duration) string {
	var refused *refusedError
	switch {
	case errors.As(err, &refused):
		return refused.msg
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s", timeout)
	}
	msg := err.Error()
	var urlErr *url.Error // "Post <url>: ...": the log says which URL already
	if errors.As(err, &urlErr) {
		msg = urlErr.Err.Error()
	}
	if len(msg) > maxReason {
		msg = strings.ToValidUTF8(msg[:maxReason], "") + "…"
	}
	return msg
}

// maxReason bounds the reason an attempt's log entry gives for a failure.
const maxReason = 200

// summaryA is a message as family A lists it, which message.received
// webhooks carry.
func summaryA(m *mailbox.Message) wire.EmailSummaryA {
	s := m.Summary()
	return wire.SummaryAOf(&s)
}
