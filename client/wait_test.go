package client

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestReceivedAfter: a time in Query.AfterTime skips what was received at
// or before it, by asking again for what came after each such message,
// and stops on a server that answers the same message again.
func TestReceivedAfter(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	type msg struct {
		id string
		at time.Time
	}
	inbox := []msg{{"a", t0}, {"b", t0.Add(time.Second)}, {"c", t0.Add(2 * time.Second)}}
	// newest answers as the service does: the newest message newer than
	// q.After, or ErrNotYet.
	newest := func(calls *int) func(Query, time.Duration) (msg, error) {
		return func(q Query, _ time.Duration) (msg, error) {
			*calls++
			if m := inbox[len(inbox)-1]; m.id > q.After {
				return m, nil
			}
			return msg{}, ErrNotYet
		}
	}
	stamp := func(m msg) (string, time.Time) { return m.id, m.at }
	for _, c := range []struct {
		name  string
		q     Query
		want  string
		calls int
	}{
		{"no time", Query{}, "c", 1},
		{"a time before all", Query{AfterTime: t0.Add(-time.Hour)}, "c", 1},
		{"a time before the newest", Query{AfterTime: t0.Add(1500 * time.Millisecond)}, "c", 1},
		{"the newest's own time", Query{AfterTime: t0.Add(2 * time.Second)}, "", 2},
		{"a time after all", Query{AfterTime: t0.Add(time.Hour)}, "", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			got, err := receivedAfter(c.q, 0, newest(&calls), stamp)
			if got.id != c.want || (c.want == "") != errors.Is(err, ErrNotYet) || calls != c.calls {
				t.Errorf("%q %v after %d calls, want %q after %d", got.id, err, calls, c.want, c.calls)
			}
		})
	}
	same := func(Query, time.Duration) (msg, error) { return inbox[0], nil }
	if _, err := receivedAfter(Query{After: "a", AfterTime: t0}, 0, same, stamp); err == nil || !strings.Contains(err.Error(), "not newer") {
		t.Errorf("a server answering the same message: %v", err)
	}
}
