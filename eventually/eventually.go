package eventually

import (
	"testing"
	"time"
)

// Timeout is how long True and Nil wait. It is generous because CI
// machines are shared and slow; a condition that holds returns at once.
const Timeout = 30 * time.Second

// True waits until cond holds, and fails the test (t.Fatalf) naming what
// if it does not within Timeout.
func True(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Within(t, Timeout, what, func() error {
		if cond() {
			return nil
		}
		return notYet{}
	})
}

// Nil waits until check returns nil, and fails the test with its last
// error if it does not within Timeout.
func Nil(t testing.TB, what string, check func() error) {
	t.Helper()
	Within(t, Timeout, what, check)
}

// Within is Nil with a timeout of its own.
func Within(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	err := Poll(timeout, check)
	if err == nil {
		return
	}
	if _, ok := err.(notYet); ok {
		t.Fatalf("waited %v for %s", timeout, what)
	}
	t.Fatalf("waited %v for %s: %v", timeout, what, err)
}

// Poll calls check until it returns nil or timeout passes, and returns
// its last error: for a caller that says more than Within would before it
// fails.
func Poll(timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		err := check()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		timer := time.NewTimer(pause)
		<-timer.C
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// notYet is what True's condition says while it does not hold.
type notYet struct{}

func (notYet) Error() string { return "not yet" }
