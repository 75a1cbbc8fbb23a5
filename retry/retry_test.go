package retry_test

import (
	"context"
	"testing"
	"time"

	"tempmail/retry"
)

func TestSchedulesGrowToTheirBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    retry.Schedule
		want []time.Duration
	}{
		{retry.Publish, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}},
		{retry.Race, []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 60 * time.Millisecond}},
		{retry.Apply, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}},
		{retry.PutOff, []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second}},
	} {
		for attempt, want := range c.want {
			if got := c.s.Wait(attempt); got != want {
				t.Errorf("%+v: wait after %d failed tries %v, want %v", c.s, attempt+1, got, want)
			}
		}
		if got := c.s.Wait(1000); got != c.s.Max {
			t.Errorf("%+v: wait after 1000 tries %v, want the bound %v", c.s, got, c.s.Max)
		}
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if retry.PutOff.Sleep(ctx, 0) {
		t.Error("a sleep whose context ended said its wait passed")
	}
	if !(retry.Schedule{First: time.Millisecond, Max: time.Millisecond}).Sleep(context.Background(), 0) {
		t.Error("a sleep that waited said it did not")
	}
}
