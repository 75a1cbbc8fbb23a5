package broker

import (
	"errors"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
)

// WrongLastSeq reports a failed expected-sequence check: a write made on
// the condition that a subject's last sequence (an event stream's
// aggregate, a view's KV entry) was one it no longer is. The server says
// so with 10071 on a single node, 10164 on replicated streams.
func WrongLastSeq(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// Unavailable marks err, NATS not answering or refusing a request, as of
// kind Unavailable: the caller may try again. store names for the user
// what could not serve ("the event store", "the view store"); each store's
// package says it once, in a helper of its own.
func Unavailable(store string, err error) error {
	return tempmail.Wrap(tempmail.Unavailable, err, store+" is unavailable; try again")
}
