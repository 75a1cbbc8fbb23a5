package broker

import (
	"context"
	"errors"
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

// ErrNoQuorum: a replicated stream's leader is out of reach, or has lost
// touch with the majority of its copies. What a replica answers then is
// its own state, which may be behind; a start-up step tries again
// (Transient).
var ErrNoQuorum = errors.New("no quorum")

// Quorum reports whether stream can take writes as seen from js: its
// leader answers, and has heard from a majority of the replicas lately.
// Two answers look healthy and are not: a replica cut off from the others
// answers a stream info itself once it has no leader (after the election
// timeout, a few seconds), and a leader cut off keeps answering as leader
// until it steps down. A stream of one copy has a quorum when it answers.
func Quorum(ctx context.Context, js jetstream.JetStream, stream string) error {
	_, err := LeaderInfo(ctx, js, stream)
	return err
}

// LeaderInfo is the stream's info as its leader, with a quorum, gives it:
// the state every replica agrees on (see Quorum), never a replica's own,
// which may be behind. It fails with ErrNoQuorum in the chain otherwise.
func LeaderInfo(ctx context.Context, js jetstream.JetStream, stream string) (*jetstream.StreamInfo, error) {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("stream %s does not answer: %w", stream, err)
	}
	info := st.CachedInfo()
	ci := info.Cluster
	if ci == nil || len(ci.Replicas) == 0 {
		return info, nil
	}
	if ci.Leader == "" {
		return nil, fmt.Errorf("stream %s has no leader within reach: %w", stream, ErrNoQuorum)
	}
	heard := 1 // the leader
	for _, r := range ci.Replicas {
		if (r.Current || r.Active > 0) && r.Active < quorumHeard {
			heard++
		}
	}
	if need := (len(ci.Replicas)+1)/2 + 1; heard < need {
		return nil, fmt.Errorf("stream %s: its leader %s has heard from %d of its %d copies within %v, fewer than a majority: %w", stream,
			ci.Leader, heard, len(ci.Replicas)+1, quorumHeard, ErrNoQuorum)
	}
	return info, nil
}
