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
