package broker

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

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

// MsgGone tells a message that is gone already, from the answer to a read
// or a deletion of it: a deletion of it has nothing left to do.
func MsgGone(err error) bool {
	code := ErrorCode(err)
	return errors.Is(err, jetstream.ErrMsgNotFound) || code == jetstream.JSErrCodeMessageNotFound ||
		code == jsErrSequenceNotFound ||
		(code == jsErrDeleteFailed && (strings.Contains(err.Error(), "no message found") ||
			strings.Contains(err.Error(), "stream store EOF")))
}

// The server's answers to a deletion of a message that is not there:
// "sequence N not found", or "message delete failed" saying "no message
// found" (deleted before, by an inbox's purge say) or "stream store EOF"
// (past the stream's last).
const (
	jsErrSequenceNotFound = 10043
	jsErrDeleteFailed     = 10057
)

// errCodeRe finds the server's error code in the text of an error the
// client did not wrap: nats.go's DeleteMsg reports a refusal as
// ErrMsgDeleteUnsuccessful with the API error formatted into its text.
var errCodeRe = regexp.MustCompile(`err_code=(\d+)`)

// ErrorCode is the JetStream API error code err carries; 0 for none.
func ErrorCode(err error) jetstream.ErrorCode {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode
	}
	if err != nil {
		if m := errCodeRe.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			return jetstream.ErrorCode(n)
		}
	}
	return 0
}
