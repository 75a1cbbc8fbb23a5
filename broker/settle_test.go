package broker_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
)

// A cluster just formed answers start-up steps with these while it elects
// leaders; each is tried again. What says the request itself is wrong is
// not. (A node of the cluster test gave up its start on "no response from
// stream", the client library's word for a stream without a leader yet.)
func TestTransientErrorsAreThoseOfAClusterElectingLeaders(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("read or store the API token: %w", jetstream.ErrNoStreamResponse), true},
		{nats.ErrNoResponders, true},
		{nats.ErrTimeout, true},
		{&jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, true},
		{&jetstream.APIError{Code: 500, ErrorCode: 10005, Description: "no suitable peers for placement"}, true},
		{&jetstream.APIError{Code: 400, ErrorCode: 10058, Description: "stream name already in use with a different configuration"}, false},
		{errors.New("decode: bad token"), false},
	} {
		if got := broker.Transient(c.err); got != c.want {
			t.Errorf("Transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
