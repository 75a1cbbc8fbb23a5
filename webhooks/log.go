package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The delivery log: per subscription, its recent attempts on
// whlog.<webhook>.a (the stream keeps attemptsKept of them, for
// logKeptFor), and on whlog.<webhook>.s whether it is failing: set when a
// delivery is given up, cleared by the next success.
const (
	logRoot      = "whlog"
	attemptsKept = 50
	logKeptFor   = 7 * 24 * time.Hour
)

// Attempt is one try at a delivery.
type Attempt struct {
	EventID    string    `json:"webhook_event_id"` // the webhook-id header
	EventType  string    `json:"event_type"`
	Attempt    int       `json:"attempt"`
	StatusCode int       `json:"status_code"` // 0: no answer
	Error      string    `json:"error"`       // empty on success
	DurationMS int64     `json:"duration_ms"`
	At         time.Time `json:"at"`
	// Response is the start of the receiver's answer.
	Response string `json:"response,omitempty"`
	// GaveUp is set on the last attempt of a delivery that never
	// succeeded; Next, when the delivery will be tried again.
	GaveUp bool       `json:"gave_up,omitempty"`
	Next   *time.Time `json:"next_attempt_at,omitempty"`
}

// State is whether a subscription is failing: its last given-up delivery
// came after its last success.
type State struct {
	Failing bool      `json:"failing"`
	Since   time.Time `json:"since,omitzero"` // when it began failing
}

func attemptsSubject(webhook string) string { return logRoot + "." + webhook + ".a" }
func stateSubject(webhook string) string    { return logRoot + "." + webhook + ".s" }

// record adds an attempt to the log. The log is for people: a record
// that cannot be written is reported, and the delivery goes on.
func (w *Webhooks) record(ctx context.Context, webhook string, a Attempt) {
	data, _ := json.Marshal(a)
	if _, err := w.js.Publish(ctx, attemptsSubject(webhook), data); err != nil {
		w.logger.Warn("webhooks: cannot record a delivery attempt", "webhook", webhook, "err", err)
	}
}

// setState records a change of a subscription's state.
func (w *Webhooks) setState(ctx context.Context, webhook string, s State) error {
	data, _ := json.Marshal(s)
	_, err := w.js.Publish(ctx, stateSubject(webhook), data)
	return err
}

// Attempts returns a subscription's recent attempts, newest first.
func (w *Webhooks) Attempts(ctx context.Context, webhook string) ([]Attempt, error) {
	var out []Attempt
	subject := attemptsSubject(webhook)
	for seq := uint64(1); len(out) < attemptsKept; {
		m, err := w.log.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		var a Attempt
		if json.Unmarshal(m.Data, &a) == nil {
			out = append(out, a)
		}
		seq = m.Sequence + 1
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// State returns whether a subscription is failing.
func (w *Webhooks) State(ctx context.Context, webhook string) (State, error) {
	m, err := w.log.GetLastMsgForSubject(ctx, stateSubject(webhook))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return State{}, nil
	}
	if err != nil {
		return State{}, err
	}
	var s State
	err = json.Unmarshal(m.Data, &s)
	return s, err
}

// Forget drops a deleted subscription's log.
func (w *Webhooks) Forget(ctx context.Context, webhook string) error {
	return w.log.Purge(ctx, jetstream.WithPurgeSubject(logRoot+"."+webhook+".>"))
}
