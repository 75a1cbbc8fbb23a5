package broker_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/broker"
)

// A refused expectation is told by its error code, on a single node
// (10071) and on a replicated stream (10164), wrapped or not; other
// refusals are not.
func TestWrongLastSeqIsBothCodesOfARefusedExpectation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence}, true},
		{&jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequenceConstant}, true},
		{fmt.Errorf("publish: %w", &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence}), true},
		{&jetstream.APIError{Code: 503, ErrorCode: 10008}, false},
		{errors.New("wrong last sequence"), false},
		{nil, false},
	} {
		if got := broker.WrongLastSeq(c.err); got != c.want {
			t.Errorf("WrongLastSeq(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// Unavailable keeps its cause and says which store, in the kind the api
// answers 503 for.
func TestUnavailableNamesTheStoreAndKeepsTheCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("nats: timeout")
	err := broker.Unavailable("the view store", cause)
	if tempmail.KindOf(err) != tempmail.Unavailable || !errors.Is(err, cause) {
		t.Errorf("Unavailable: kind %v, cause kept %v", tempmail.KindOf(err), errors.Is(err, cause))
	}
	if got := tempmail.Message(err, ""); got != "the view store is unavailable; try again" {
		t.Errorf("message %q", got)
	}
}

// A message gone already is told by the client's error, by the server's
// code, or by the text of a refused deletion, which nats.go does not
// wrap; other refusals are not.
func TestMsgGoneIsEveryAnswerOfAMessageNotThere(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{jetstream.ErrMsgNotFound, true},
		{fmt.Errorf("get: %w", jetstream.ErrMsgNotFound), true},
		{&jetstream.APIError{Code: 404, ErrorCode: jetstream.JSErrCodeMessageNotFound}, true},
		{&jetstream.APIError{Code: 400, ErrorCode: 10043, Description: "sequence 7 not found"}, true},
		{refusedDelete(10057, "message delete failed: no message found"), true},
		{refusedDelete(10057, "message delete failed: stream store EOF"), true},
		{refusedDelete(10057, "message delete failed: disk full"), false},
		{&jetstream.APIError{Code: 503, ErrorCode: 10008}, false},
		{errors.New("nats: timeout"), false},
		{nil, false},
	} {
		if got := broker.MsgGone(c.err); got != c.want {
			t.Errorf("MsgGone(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	if got := broker.ErrorCode(refusedDelete(10158, "duplicate message id is in process")); got != 10158 {
		t.Errorf("ErrorCode of a code in the text: %d", got)
	}
}

// refusedDelete is a refused deletion as nats.go's DeleteMsg reports it:
// the API error formatted into the text, not wrapped.
func refusedDelete(code jetstream.ErrorCode, description string) error {
	apiErr := &jetstream.APIError{Code: 400, ErrorCode: code, Description: description}
	return fmt.Errorf("%w: %s", jetstream.ErrMsgDeleteUnsuccessful, apiErr.Error())
}
