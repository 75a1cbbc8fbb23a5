package events

import (
	"context"
	"testing"
	"time"
)

// A flush of the key file that fails is not dropped: the background loop
// reports it (the store counts it in tempmail_event_store_errors_total),
// and Close returns it.
func TestKeyFileFlushFailuresAreReported(t *testing.T) {
	t.Parallel()
	failed := make(chan error, 1)
	k, err := openFileKeys(t.TempDir(), func(err error) {
		select {
		case failed <- err:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.New(context.Background(), "0f8fad5b-d9cb-469f-a165-70867728950e"); err != nil {
		t.Fatal(err)
	}
	// The file goes away under the store: every sync from now on fails.
	if err := k.f.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-failed:
		t.Logf("reported: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the failed background flush was not reported")
	}
	if err := k.Close(); err == nil {
		t.Error("Close returned no error for a key file it could not flush")
	}
}
