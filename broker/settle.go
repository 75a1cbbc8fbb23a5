package broker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/retry"
)

// settleAttempt bounds one try of a start-up step. Every step is quick
// when JetStream answers; a lost answer is retried soon rather than awaited.
const settleAttempt = 3 * time.Second

// Settle runs one idempotent start-up step (creating streams, buckets,
// consumers), again while JetStream cannot answer yet: in a cluster that
// has just formed, leaders are still being elected, and when several nodes
// create the same stream at once the server leaves all but one request
// unanswered. It gives up on the first error that is not Transient, or
// when ctx ends.
func Settle(ctx context.Context, log *slog.Logger, step string, fn func(context.Context) error) error {
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, settleAttempt)
		err := fn(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !Transient(err) {
			return err
		}
		log.Warn("JetStream not ready; trying again", "step", step, "attempt", attempt, "err", err)
		if !retry.Start.Sleep(ctx, attempt-1) {
			return err
		}
	}
}

// ErrNotYetShown: something just stored is not read back yet, as a stream
// leader elected a moment ago may answer before it applied what it has.
// A start-up step that stores and reads back (the shared API token,
// service/token.go) wraps it to be tried again (Transient).
var ErrNotYetShown = errors.New("stored, but not yet shown by the stream's leader")

// Transient tells the errors worth another try at start-up: timeouts, no
// responders (no stream leader yet), and JetStream's "temporarily
// unavailable" while leaders are elected or a peer is not yet back.
func Transient(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, ErrNotYetShown) ||
		errors.Is(err, ErrNoQuorum) ||
		errors.Is(err, nats.ErrNoResponders) ||
		// A publish to a stream with no leader yet: the client library's
		// word for no responders.
		errors.Is(err, jetstream.ErrNoStreamResponse) ||
		(errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeJetStreamNotEnabled ||
			apiErr.Code == 503 || apiErr.Code == 408 ||
			apiErr.ErrorCode == 10008 || // "JetStream system temporarily unavailable"
			apiErr.ErrorCode == 10005)) // "no suitable peers for placement": a peer not yet back
}
