package broker

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// quorumHeard is how recently a stream's leader must have heard from a
// replica for it to count towards a quorum. The leader hears from each
// every second when all is well; NATS itself gives up leading after 10 s
// without a majority, and until then the leader answers for the stream as
// if nothing were wrong.
const quorumHeard = 5 * time.Second

// Quorum reports whether stream can take writes as seen from js: its
// leader answers, and has heard from a majority of the replicas lately.
// Two answers look healthy and are not: a replica cut off from the others
// answers a stream info itself once it has no leader (after the election
// timeout, a few seconds), and a leader cut off keeps answering as leader
// until it steps down. A stream of one copy has a quorum when it answers.
func Quorum(ctx context.Context, js jetstream.JetStream, stream string) error {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("stream %s does not answer: %w", stream, err)
	}
	ci := st.CachedInfo().Cluster
	if ci == nil || len(ci.Replicas) == 0 {
		return nil
	}
	if ci.Leader == "" {
		return fmt.Errorf("stream %s has no leader within reach", stream)
	}
	heard := 1 // the leader
	for _, r := range ci.Replicas {
		if (r.Current || r.Active > 0) && r.Active < quorumHeard {
			heard++
		}
	}
	if need := (len(ci.Replicas)+1)/2 + 1; heard < need {
		return fmt.Errorf("stream %s: its leader %s has heard from %d of its %d copies within %v, fewer than a majority", stream,
			ci.Leader, heard, len(ci.Replicas)+1, quorumHeard)
	}
	return nil
}
